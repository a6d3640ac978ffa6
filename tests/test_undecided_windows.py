"""Windows whose pre-state no state the spec reaches by following the trace shows are
`undecided` (with the reason and a hint), shown apart from failures, and never count as passed;
a state mapping in the adapter decides nothing (it is ignored: no state is built from a
window)."""

import pytest

from evaluation.inputs.contracts import parse_adapter
from evaluation.phases.conformance import check_conformance
from evaluation.phases.conformance.follow import (
    HINT_LEFT,
    HINT_UNBRIDGED,
    EventResult,
    Followed,
    _read_trace,
    _Seen,
    _Trace,
)
from evaluation.phases.conformance.followmodule import Bounds
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


def test_a_bound_reached_past_a_failed_event_names_that_event_as_where_the_spec_left():
    # Events 1-3 of one trace: 1 passed, 2 failed in an earlier run, and this run, looking for
    # a state past 2, reached the state bound. Event 3 is undecided because the spec left the
    # trace at 2 (fix that event), not because the spec has too many free choices.
    out = Followed(events={1: EventResult("pass"), 2: EventResult("fail")})
    trace = _Trace(events=[1, 2, 3], skip={2})
    bounds = Bounds(quiet=4, free=6, most=32, resync=4, states=1000)
    seen = _Seen(taken={1}, resynced=set(), shown=set(), capped=True)
    _read_trace(out, trace, 0, {1: 1, 2: 2, 3: 3}, seen, [False] * 3, bounds)
    third = out.events[3]
    assert third.verdict == "undecided" and third.hint == HINT_LEFT
    assert "event 2 failed" in third.reason and "1000 distinct states" in third.reason
    assert out.left[0][0] == 2 and trace.done
