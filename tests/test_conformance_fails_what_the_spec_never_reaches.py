"""An event whose pre-state no state of the spec's whole behaviour shows fails: the exploration
of everything the spec can reach (whole_behaviour.py) is a proof that following, with its bounded
gaps and resynchronisations, cannot give. An exploration the state bound stops proves nothing
and leaves the event undecided; no verdict ever becomes a pass this way."""

import dataclasses

import pytest

from evaluation.phases.conformance import check_conformance, whole_behaviour
from evaluation.phases.conformance.follow import HINT_UNBRIDGED
from evaluation.phases.conformance.whole_behaviour import HINT_UNREACHABLE
from tests.conformance_support import (
    hidden_counter_windows,
    replace_once,
    spec_with_hidden_counter,
    spin,
    spin_spec,
    spin_windows,
)

pytestmark = pytest.mark.tla


def _counts(outcome, action):
    row = outcome.details["per_action"][action]
    return row["passed"], row["failed"], row["undecided"]


def test_events_the_spec_can_never_reach_fail_with_the_exploration_that_proves_it():
    # No thread of this spec ever waits in lock(): the six ReleaseLock windows, taken while
    # another thread is acquiring, show a state outside its whole (finite) behaviour.
    outcome = check_conformance(
        spec_with_hidden_counter(bounded=True), spin(), hidden_counter_windows()
    )
    assert _counts(outcome, "AcquireLock") == (6, 0, 0)
    assert _counts(outcome, "ReleaseLock") == (0, 6, 0)
    failed = [w for w in outcome.windows if w.verdict == "fail"]
    explored = outcome.details["whole_exploration"]
    assert explored["exhaustive"] and explored["unreachable_windows"] == 6
    assert {w.detail["unreachable_in"] for w in failed} == {explored["distinct_states"]}
    assert {w.detail["hint"] for w in failed} == {HINT_UNREACHABLE}
    assert all("no state the spec can reach" in w.reason for w in failed)
    assert outcome.score == 0.5  # a proof of failure moves no score: undecided never passed


def test_an_exploration_the_state_bound_stops_decides_nothing():
    # Counting its acquisitions, the same spec never runs out of states: the exploration stops
    # at the state bound and the six windows stay undecided, with the following's own hint.
    contract = spin()
    small = contract.budgets.with_("conformance", max_states=2000)
    outcome = check_conformance(
        spec_with_hidden_counter(),
        dataclasses.replace(contract, budgets=small),
        hidden_counter_windows(),
    )
    assert _counts(outcome, "ReleaseLock") == (0, 0, 6)
    explored = outcome.details["whole_exploration"]
    assert not explored["exhaustive"] and explored["unreachable_windows"] == 0
    assert explored["distinct_states"] >= 2000
    undecided = [w for w in outcome.windows if w.verdict == "undecided"]
    assert {w.detail["hint"] for w in undecided} == {HINT_UNBRIDGED}


def test_nothing_is_explored_when_following_decided_every_event():
    windows = [w for w in spin_windows() if w["trace_id"] == spin_windows()[0]["trace_id"]]
    outcome = check_conformance(spin_spec(), spin(), windows)
    assert outcome.details["undecided"] == 0
    assert "whole_exploration" not in outcome.details


# Thread "2" never takes the lock by a step of Next: it takes it only where an event carries a
# message, which its mapped action takes alone (decision 0037).
TWO_ONLY_BY_MESSAGE = replace_once(
    spin_spec(),
    "Next == \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)",
    'Next == \\E t \\in Threads : StartLock(t) \\/ (t # "2" /\\ AcquireLock(t)) \\/ ReleaseLock(t)',
)


def _carried_and_alone():
    """A trace whose thread-"2" acquisitions carry a message, and, as a trace of its own, an
    event whose pre-state has thread "2" holding the lock: no gap from Init gets there by steps
    of Next, so following leaves it undecided."""
    windows = spin_windows()
    first = windows[0]["trace_id"]
    trace = [dict(w) for w in windows if w["trace_id"] == first]
    for w in trace:
        if w["action"] == "AcquireLock" and w["actor"] == "2":
            w["input"] = "grant"
    held = [w for w in trace if w["pre_state"]["pc"]["2"] == "locked"]
    assert held and any("input" in w for w in trace)
    return trace + [dict(held[0], trace_id="alone", window_id="alone/0")]


def test_states_only_a_message_event_makes_are_explored_and_fail_nothing(monkeypatch):
    windows = _carried_and_alone()
    outcome = check_conformance(TWO_ONLY_BY_MESSAGE, spin(), windows)
    got = {w.window_id: w for w in outcome.windows}
    carried = [w for w in windows if "input" in w]
    assert {got[w["window_id"]].verdict for w in carried} == {"pass"}
    assert outcome.details["whole_exploration"]["exhaustive"]
    assert got["alone/0"].verdict == "undecided"
    # Without the message events' steps the exploration would lack those states, and the event
    # would fail although following a trace reaches its pre-state.
    monkeypatch.setattr(whole_behaviour, "carried_steps", lambda *args: [])
    narrowed = check_conformance(TWO_ONLY_BY_MESSAGE, spin(), windows)
    assert {w.window_id: w.verdict for w in narrowed.windows}["alone/0"] == "fail"
