"""Each spin mutant loses exactly the windows its defect touches: it fails those whose pre-state
it reaches, and a window showing a state its defect makes unreachable is undecided (no state of
the mutant shows it); the over-permissive one keeps P3 = 1 and is caught by specificity.
Expected verdicts come from the window data, not from the checker."""

import pytest

from evaluation.phases.conformance import check_conformance
from tests.conformance_support import spin, spin_spec, spin_windows, verdicts

pytestmark = pytest.mark.tla


def _expected(mutant: str, window: dict) -> str:
    action, pre = window["action"], window["pre_state"]
    phases = set(pre["pc"].values())
    if mutant == "flipped_guard":
        # It never takes the lock: no state of it has a thread holding one.
        if "locked" in phases:
            return "undecided"
        return "fail" if action == "AcquireLock" else "pass"
    if mutant == "merged_steps":
        # lock() goes from idle to locked at once: no state of it has a thread spinning.
        return "undecided" if "acquiring" in phases else "pass"
    if mutant == "wrong_post_state":
        return "fail" if action == "ReleaseLock" else "pass"
    return "pass"


SCORES = {"flipped_guard": 0.0, "wrong_post_state": 0.5, "merged_steps": 0.0}


@pytest.mark.parametrize("mutant", sorted(SCORES))
def test_mutant_loses_exactly_the_windows_it_should(mutant):
    windows = spin_windows()
    outcome = check_conformance(spin_spec(mutant), spin(), windows)
    expected = {w["window_id"]: _expected(mutant, w) for w in windows}
    assert set(expected.values()) - {"pass"}
    assert verdicts(outcome) == expected
    assert outcome.score == SCORES[mutant]
    lost = [w for w in outcome.windows if w.verdict != "pass"]
    assert len(outcome.details["failing_windows"]) == len(lost)


def test_wrong_post_state_diff_names_the_variable():
    outcome = check_conformance(spin_spec("wrong_post_state"), spin(), spin_windows()[:40])
    failing = [w for w in outcome.windows if w.verdict == "fail"]
    assert failing
    for window in failing:
        closest = window.detail["closest"][0]
        assert closest["differences"] == [
            {"variable": "lockState", "trace": "unlocked", "spec": "locked"}
        ]
        assert "lockState" in window.reason


def test_dropped_guard_passes_every_window_but_specificity_flags_it():
    outcome = check_conformance(spin_spec("dropped_guard"), spin(), spin_windows())
    # Since issue 37 the flag counts: taking a held lock from a real state where another
    # thread holds it breaks MutualExclusion (a safety negative), so AcquireLock scores 0.
    assert outcome.score == 0.5
    assert {w.verdict for w in outcome.windows} == {"pass"}
    spec = {a.action: a.detail["specificity"] for a in outcome.actions}
    assert spec["AcquireLock"]["by_family"]["neg-safety"]["wrongly_accepted"] > 0
    assert spec["AcquireLock"]["wrongly_accepted"] > 0
    assert spec["ReleaseLock"]["wrongly_accepted"] == 0
    for example in spec["AcquireLock"]["examples"]:
        # What the dropped guard lets through: acquiring a lock that is already held.
        assert example["pre_state"]["lockState"] == "locked"
