"""Windows whose pre-state no state the spec reaches by following the trace shows are
`undecided` (with the reason and a hint), shown apart from failures, and never count as passed;
a state mapping in the adapter decides nothing (it is ignored: no state is built from a
window)."""

import pytest

from evaluation.inputs.contracts import parse_adapter
from evaluation.phases.conformance import check_conformance
from evaluation.phases.conformance.follow import (
    EXTENDED_RUNS,
    HINT_LEFT,
    HINT_UNBRIDGED,
    EventResult,
    Followed,
    _Following,
    _read_trace,
    _Seen,
    _Trace,
)
from evaluation.phases.conformance.followmodule import Bounds
from evaluation.phases.conformance.traces import Event, Trace
from tests.conformance_support import hidden_counter_windows, spec_with_hidden_counter, spin

pytestmark = pytest.mark.tla


def test_unbuildable_pre_states_are_undecided_with_a_hint_and_do_not_pass():
    outcome = check_conformance(spec_with_hidden_counter(), spin(), hidden_counter_windows())
    per_action = outcome.details["per_action"]
    assert per_action["AcquireLock"]["passed"] == 6
    release = per_action["ReleaseLock"]
    assert (release["passed"], release["failed"], release["undecided"]) == (0, 0, 6)
    assert release["zero_tolerance"] == 0  # undecided never counts as passed
    assert outcome.score == 0.5
    undecided = [w for w in outcome.windows if w.verdict == "undecided"]
    assert "shows this event's pre-state" in undecided[0].reason
    assert undecided[0].detail["hint"] == HINT_UNBRIDGED
    assert outcome.details["undecided"] == 6


@pytest.mark.parametrize(
    "held", ["'IF obs.lockState = \"locked\" THEN 1 ELSE 0'", "'1'"], ids=["right", "wrong"]
)
def test_a_state_mapping_decides_nothing(held):
    # Whether it agrees with the spec or not, a mapping builds no state: the same verdicts.
    adapter = parse_adapter(
        "state:\n"
        f"  held: {held}\n"
        '  callType: \'[t \\in Threads |-> IF obs.pc[t] = "idle" THEN "none" ELSE "lock"]\'\n',
        spin(),
    )
    mapped = check_conformance(
        spec_with_hidden_counter(), spin(), hidden_counter_windows(), adapter
    )
    plain = check_conformance(spec_with_hidden_counter(), spin(), hidden_counter_windows())
    assert mapped.details["state_mapping"]["ignored"] == ["callType", "held"]
    assert {w.window_id: w.verdict for w in mapped.windows} == {
        w.window_id: w.verdict for w in plain.windows
    }
    assert mapped.details["per_action"]["ReleaseLock"]["undecided"] == 6


BOUNDS = Bounds(quiet=4, free=6, most=32, resync=4, states=1000)
FOUR = {e: e for e in range(1, 5)}  # events 1-4 of one trace, numbered as in the run


def _seen(taken: set[int], capped: bool, **bridged: dict[int, int]) -> _Seen:
    return _Seen(
        taken=taken,
        resynced=bridged.get("resynced", {}),
        shown=set(),
        capped=capped,
        picked=bridged.get("picked", {}),
    )


def _read(out: Followed, trace: _Trace, seen: _Seen, extend: bool = True) -> None:
    _read_trace(out, trace, 0, FOUR, seen, [False] * 4, BOUNDS, extend)


def _failed_at_two() -> Followed:
    return Followed(events={1: EventResult("pass"), 2: EventResult("fail")})


def test_a_bound_reached_past_a_failed_event_names_that_event_as_where_the_spec_left():
    # Event 1 passed, 2 failed in an earlier run, and this run, looking for a state past 2,
    # reached the state bound. The next run may still pick the trace up later; when it too
    # reaches the bound with no pick-up, event 3 is undecided because the spec left the trace
    # at 2 (fix that event), not because the spec has too many free choices.
    out, trace = _failed_at_two(), _Trace(events=[1, 2, 3, 4], skip={2})
    _read(out, trace, _seen({1}, capped=True))
    assert trace.far == {2} and not trace.done and 3 not in out.events
    _read(out, trace, _seen({1}, capped=True))
    third = out.events[3]
    assert third.verdict == "undecided" and third.hint == HINT_LEFT
    assert "event 2 failed" in third.reason and "1000 distinct states" in third.reason
    assert out.left[0][0] == 2 and trace.done


def test_a_pick_up_the_bound_cut_short_runs_again_no_deeper_than_it_was_found():
    # 2 failed and could not be resynchronised; this run picked the trace up at 3 after 2 gap
    # steps (the least printed), then reached the state bound before 3 was taken. The next run
    # narrows the gap at 2 to those 2 steps instead of giving up.
    out, trace = _failed_at_two(), _Trace(events=[1, 2, 3, 4], skip={2}, far={2})
    _read(out, trace, _seen({1}, capped=True, picked={3: 2}))
    assert trace.narrowed == {2: 2} and not trace.done and 3 not in out.events
    # The narrowed run took 3 and 4: they pass, as after any other pick-up.
    _read(out, trace, _seen({1, 3, 4}, capped=False, picked={3: 2}))
    assert [out.events[e].verdict for e in (3, 4)] == ["pass", "pass"] and trace.done
    assert out.picked_up[0] == [(2, 3)]


def test_a_resynchronisation_the_bound_cut_short_is_narrowed_the_same_way():
    out, trace = _failed_at_two(), _Trace(events=[1, 2, 3, 4], skip={2})
    _read(out, trace, _seen({1}, capped=True, resynced={2: 3}))
    assert trace.narrowed == {2: 3} and not trace.done and 3 not in out.events
    _read(out, trace, _seen({1, 3}, capped=False, resynced={2: 3}))
    assert out.events[3].verdict == "pass" and out.resynced[0] == [2]


def test_a_narrowed_run_the_bound_cuts_short_again_decides_only_what_it_reached():
    out = _failed_at_two()
    trace = _Trace(events=[1, 2, 3, 4], skip={2}, far={2}, narrowed={2: 2})
    _read(out, trace, _seen({1, 3}, capped=True, picked={3: 2}))
    assert out.events[3].verdict == "pass" and out.events[4].verdict == "undecided"
    assert "bound of 1000 distinct states" in out.events[4].reason and trace.done


def test_once_the_extended_runs_are_spent_a_capped_run_ends_the_trace_as_it_stands():
    # Each run followed on from costs one that fills the bound: once a check has spent
    # follow.EXTENDED_RUNS of them, a capped search past a failure ends the trace there, and a
    # crossing it found is followed no further than the bound let it.
    out, trace = _failed_at_two(), _Trace(events=[1, 2, 3, 4], skip={2})
    _read(out, trace, _seen({1}, capped=True), extend=False)
    assert not trace.far and trace.done and out.events[3].verdict == "undecided"
    assert "event 2 failed" in out.events[3].reason
    out, trace = _failed_at_two(), _Trace(events=[1, 2, 3, 4], skip={2})
    _read(out, trace, _seen({1, 3}, capped=True, resynced={2: 3}), extend=False)
    assert not trace.narrowed and trace.done
    assert [out.events[e].verdict for e in (3, 4)] == ["pass", "undecided"]


def test_a_later_failure_is_narrowed_only_by_its_own_crossing():
    # Events 1-4: 2 failed and was picked up at 4 (after 2 steps); 3 failed too, was neither
    # resynchronised nor searched past (not far): the pick-up at 4 is 2's, never 3's depth.
    out = Followed(events={1: EventResult("pass"), 2: EventResult("fail")})
    trace = _Trace(events=[1, 2, 3, 4], skip={2, 3}, far={2})
    _read(out, trace, _seen({1}, capped=True, picked={4: 2}))
    assert trace.narrowed == {2: 2}


def _following_one_trace(out: Followed, trace: _Trace) -> _Following:
    events = tuple(Event(window=w, quiet=False) for w in range(4))
    windows = [{"action": "AcquireLock"} for _ in range(4)]
    following = _Following(None, BOUNDS, [Trace("t", events)], windows, [], ())  # type: ignore[arg-type]
    following.out, following.state[0] = out, trace
    return following


def test_only_a_capped_run_its_trace_goes_on_from_spends_an_extended_run():
    # Capped with no failure to search past: the trace ends there, and a later trace of the
    # check still has every extended run.
    following = _following_one_trace(
        Followed(events={1: EventResult("pass")}), _Trace(events=[1, 2, 3, 4])
    )
    following._read([0], FOUR, _seen({1}, capped=True))
    assert following.state[0].done and following.extended == 0
    # Capped while searching past the failed event 2: the next run picks the trace up, and
    # that costs one.
    following = _following_one_trace(_failed_at_two(), _Trace(events=[1, 2, 3, 4], skip={2}))
    following._read([0], FOUR, _seen({1}, capped=True))
    assert following.state[0].far == {2} and following.extended == 1
    # Once all are spent, the same run ends the trace instead.
    following = _following_one_trace(_failed_at_two(), _Trace(events=[1, 2, 3, 4], skip={2}))
    following.extended = EXTENDED_RUNS
    following._read([0], FOUR, _seen({1}, capped=True))
    assert following.state[0].done and not following.state[0].far
