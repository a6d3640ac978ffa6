"""Each spin mutant loses exactly the windows its defect touches, as P3 follows each trace from
Init: it fails the first event its defect stops it from taking where it shows the event's
pre-state, and an event whose pre-state it cannot reach after a gap the trace does not explain
is undecided, unless no state of its whole (small) behaviour shows the event's pre-state or
post-state: then the event fails, proved by the exploration of everything it reaches. After an
event it can neither take nor resynchronise at, it may pick the trace up again at a later event
whose pre-state its own steps reach: there each verdict still follows from the defect alone (a
pass only where its action takes the window, a fail only where it does not). The over-permissive
one keeps P3 = 1 and is caught by specificity. Expected verdicts come from the window data and
what each mutant can reach (read off its text), not from the checker."""

import pytest

from evaluation.phases.conformance import check_conformance
from tests.conformance_support import spin, spin_spec, spin_windows, verdicts

pytestmark = pytest.mark.tla


def _phases(state: dict) -> set[str]:
    return set(state["pc"].values())


# Per mutant: (shows(state): a state it reaches shows it, takes(window): its action takes the
# window's pre-state to its post-state, recovers(window): after failing it, its own steps from
# where it stands reach the window's post-state).
MUTANTS = {
    # AcquireLock needs the lock held: nothing ever holds it.
    "flipped_guard": (
        lambda s: "locked" not in _phases(s),
        lambda w: False,
        lambda w: "locked" not in _phases(w["post_state"]),
    ),
    # lock() goes from idle to locked at once: no thread ever spins.
    "merged_steps": (
        lambda s: "acquiring" not in _phases(s),
        lambda w: True,
        lambda w: "acquiring" not in _phases(w["post_state"]),
    ),
    # ReleaseLock leaves the lock word "locked": no one takes it again.
    "wrong_post_state": (
        lambda s: True,
        lambda w: w["action"] == "AcquireLock",
        lambda w: False,
    ),
}


def _expected(mutant: str, windows: list[dict]) -> dict[str, tuple[str, bool]]:
    """Per window: its verdict while the mutant follows its trace, and whether the mutant had
    left the trace before it (then the verdict is "undecided" unless the trace is picked up)."""
    shows, takes, recovers = MUTANTS[mutant]
    out, trace, following = {}, None, True
    for window in windows:
        if window["trace_id"] != trace:
            trace, following = window["trace_id"], True
        if not following:
            out[window["window_id"]] = (
                "fail" if _never_shown(mutant, window) else "undecided",
                True,
            )
            continue
        if not shows(window["pre_state"]):
            verdict = "undecided"
        else:
            verdict = "pass" if takes(window) else "fail"
        following = verdict == "pass" or recovers(window)
        if _never_shown(mutant, window):
            verdict = "fail"
        out[window["window_id"]] = (verdict, False)
    return out


def _never_shown(mutant: str, window: dict) -> bool:
    shows = MUTANTS[mutant][0]
    return not shows(window["pre_state"]) or not shows(window["post_state"])


def _allowed_after_leaving(mutant: str, window: dict) -> set[str]:
    # A picked-up trace decides a window only from a state showing its pre-state, and then
    # by the defect alone; a window it is not picked up at stays undecided.
    shows, takes, _ = MUTANTS[mutant]
    if _never_shown(mutant, window):
        return {"fail"}
    return {"undecided", "pass" if takes(window) else "fail"}


SCORES = {"flipped_guard": 0.0, "wrong_post_state": 0.0, "merged_steps": 0.0}


@pytest.mark.parametrize("mutant", sorted(SCORES))
def test_mutant_loses_exactly_the_windows_it_should(mutant):
    windows = spin_windows()
    outcome = check_conformance(spin_spec(mutant), spin(), windows)
    expected = _expected(mutant, windows)
    got = verdicts(outcome)
    assert {verdict for verdict, _ in expected.values()} - {"pass"}
    while_following = {w: v for w, (v, left) in expected.items() if not left}
    assert {w: got[w] for w in while_following} == while_following
    after_leaving = [w for w in windows if expected[w["window_id"]][1]]
    wrong = [
        (w["window_id"], got[w["window_id"]])
        for w in after_leaving
        if got[w["window_id"]] not in _allowed_after_leaving(mutant, w)
    ]
    assert wrong == []
    # Every mutant leaves some trace at a point its own steps come back from.
    assert any(got[w["window_id"]] != "undecided" for w in after_leaving)
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
    # Since scorer 3.0.0 (docs/decisions/0015-safety-negatives.md) the flag counts: taking a held
    # lock from a real state where another thread holds it breaks MutualExclusion (a safety
    # negative), so AcquireLock scores 0.
    assert outcome.score == 0.5
    assert {w.verdict for w in outcome.windows} == {"pass"}
    spec = {a.action: a.detail["specificity"] for a in outcome.actions}
    assert spec["AcquireLock"]["by_family"]["neg-safety"]["wrongly_accepted"] > 0
    assert spec["AcquireLock"]["wrongly_accepted"] > 0
    assert spec["ReleaseLock"]["wrongly_accepted"] == 0
    for example in spec["AcquireLock"]["examples"]:
        # What the dropped guard lets through: acquiring a lock that is already held.
        assert example["pre_state"]["lockState"] == "locked"
