"""After an event the spec can neither take nor resynchronise at, P3 picks the trace up at a
later event whose pre-state the spec's own steps reach: the events after it are decided again
(each still taken by its own action), the events in between stay undecided, and nothing the
spec cannot do passes. Real TLC on the spin windows, with a spec whose thread "2" never gets
the lock and gives up waiting for it (a step the trace does not log)."""

import dataclasses

import pytest

from evaluation.phases.conformance import check_conformance
from tests.conformance_support import replace_once, spin, spin_spec, spin_windows, verdicts

pytestmark = pytest.mark.tla

NEVER_TWO = replace_once(
    replace_once(
        spin_spec(),
        'AcquireLock(t) ==\n  /\\ lockState = "unlocked"\n',
        'AcquireLock(t) ==\n  /\\ t # "2"\n  /\\ lockState = "unlocked"\n',
    ),
    "Next == \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)",
    'GiveUp(t) == pc[t] = "acquiring" /\\ pc\' = [pc EXCEPT ![t] = "idle"]'
    ' /\\ callType\' = [callType EXCEPT ![t] = "none"] /\\ UNCHANGED lockState\n'
    "Next == \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)"
    " \\/ GiveUp(t)",
)


@pytest.fixture(scope="module")
def outcome():
    return check_conformance(NEVER_TWO, spin(), spin_windows())


def _by_trace(outcome):
    traces: dict[str, list] = {}
    for window in outcome.windows:
        traces.setdefault(window.trace_id, []).append(window)
    return traces


def test_nothing_thread_two_cannot_do_passes(outcome):
    assert outcome.status == "ran"
    two = [w for w in outcome.windows if w.actor == "2"]
    assert two and all(w.verdict != "pass" for w in two)
    acquire = [w for w in two if w.action == "AcquireLock"]
    assert {w.verdict for w in acquire} <= {"fail", "undecided"} and "fail" in {
        w.verdict for w in acquire
    }


def test_events_after_thread_two_lets_go_are_decided_again(outcome):
    rows = {row["trace_id"]: row for row in outcome.details["traces"]}
    picked = 0
    for trace_id, windows in _by_trace(outcome).items():
        verdicts = [w.verdict for w in windows]
        if "fail" not in verdicts:
            continue
        after = verdicts[verdicts.index("fail") + 1 :]
        for pick in rows[trace_id]["picked_up_at"]:
            picked += 1
            at = [w.window_id for w in windows].index(pick["at"])
            start = [w.window_id for w in windows].index(pick["after"])
            assert start < at
            # The events between were not followed: undecided, never passed, and failed only
            # where no state of the spec's whole behaviour shows them (thread "2" holding the
            # lock).
            between = windows[start + 1 : at]
            assert {w.verdict for w in between if not _never_reached(w)} <= {"undecided"}
            assert {w.verdict for w in between if _never_reached(w)} <= {"fail"}
        if rows[trace_id]["picked_up_at"]:
            assert "pass" in after
    assert picked > 0
    # Every other thread's events pass once the trace is picked up: the spec is otherwise right.
    others = [
        w
        for w in outcome.windows
        if w.actor != "2" and w.verdict != "undecided" and not _never_reached(w)
    ]
    assert others and {w.verdict for w in others} == {"pass"}


def test_events_where_thread_two_holds_the_lock_fail_as_never_reached(outcome):
    held = [w for w in outcome.windows if _never_reached(w)]
    assert held and {w.verdict for w in held} == {"fail"}
    # Those the following reached fail there (thread "2" cannot acquire); the others by the
    # whole exploration, which names its size.
    proved = [w for w in held if w.detail.get("unreachable_in")]
    assert proved and len(proved) < len(held)


def _never_reached(window) -> bool:
    # The spec's thread "2" never holds the lock, so no state it reaches shows one where it does.
    return any(state["pc"].get("2") == "locked" for state in (window.pre_state, window.post_state))


def test_a_crossing_the_state_bound_cut_short_is_narrowed_and_the_trace_goes_on():
    # At 400 distinct states per run the search across a give-up of thread "2" (keeping
    # nothing, up to free_gap_steps + resync_steps steps) fills the run before the trace goes on
    # from its pick-up. Narrowed to the steps the first pick-up took, each window gets the
    # verdict it gets without the bound.
    windows = [w for w in spin_windows() if w["trace_id"] == "trace_01"]
    unbounded = check_conformance(NEVER_TWO, spin(), windows)
    bounded = check_conformance(NEVER_TWO, _at_most(400), windows)
    assert verdicts(bounded) == verdicts(unbounded)
    (row,) = bounded.details["traces"]
    assert row["narrowed_at"] and not unbounded.details["traces"][0]["narrowed_at"]
    # A bound that cuts even the narrowed runs short decides less, never otherwise.
    tight = check_conformance(NEVER_TWO, _at_most(150), windows)
    full = verdicts(unbounded)
    assert "undecided" in verdicts(tight).values()
    assert all(v in (full[w], "undecided") for w, v in verdicts(tight).items())


def test_a_run_of_several_traces_that_fills_the_bound_is_not_followed_on():
    # Following on re-follows every trace of the run from Init, so only a run of one trace is
    # (follow.EXTENDED_RUNS): two traces at 600 states end where the bound cut them.
    windows = [w for w in spin_windows() if w["trace_id"] in ("trace_01", "trace_02")]
    bounded = check_conformance(NEVER_TWO, _at_most(600), windows)
    assert not any(row["narrowed_at"] for row in bounded.details["traces"])
    assert "undecided" in verdicts(bounded).values()


def _at_most(states: int):
    contract = spin()
    budgets = contract.budgets.with_("conformance", max_states=states)
    return dataclasses.replace(contract, budgets=budgets)
