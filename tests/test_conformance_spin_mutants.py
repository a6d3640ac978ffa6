"""Each spin mutant fails exactly the windows its defect touches; the over-permissive one keeps
P3 = 1 and is caught by specificity. Expected verdicts come from the window data, not from the
checker."""

import pytest

from evaluation.phases.conformance import check_conformance
from tests.conformance_support import spin, spin_spec, spin_windows, verdicts

pytestmark = pytest.mark.tla


def _expected(mutant: str, window: dict) -> str:
    action, pre = window["action"], window["pre_state"]
    if mutant == "flipped_guard":
        wrong = action == "AcquireLock"  # every AcquireLock window starts unlocked
    elif mutant == "wrong_post_state":
        wrong = action == "ReleaseLock"
    elif mutant == "merged_steps":
        wrong = action == "AcquireLock" and pre["pc"][window["actor"]] == "acquiring"
    else:
        wrong = False
    return "fail" if wrong else "pass"


@pytest.mark.parametrize("mutant", ["flipped_guard", "wrong_post_state", "merged_steps"])
def test_mutant_fails_exactly_the_windows_it_should(mutant):
    windows = spin_windows()
    outcome = check_conformance(spin_spec(mutant), spin(), windows)
    expected = {w["window_id"]: _expected(mutant, w) for w in windows}
    assert "fail" in expected.values()
    assert verdicts(outcome) == expected
    assert outcome.score == 0.5
    failing = [w for w in outcome.windows if w.verdict == "fail"]
    assert len(outcome.details["failing_windows"]) == len(failing)


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
    assert outcome.score == 1.0
    assert {w.verdict for w in outcome.windows} == {"pass"}
    spec = {a.action: a.detail["specificity"] for a in outcome.actions}
    assert spec["AcquireLock"]["wrongly_accepted"] > 0
    assert spec["ReleaseLock"]["wrongly_accepted"] == 0
    for example in spec["AcquireLock"]["examples"]:
        # What the dropped guard lets through: acquiring a lock that is already held.
        assert example["pre_state"]["lockState"] == "locked"
