"""Windows whose pre-state no state of the spec shows are `undecided` (with the reason and a
hint), shown apart from failures, and never count as passed; a state mapping in the adapter that
the spec's reachable states confirm decides them, one they refute does not."""

import pytest

from evaluation.inputs.contracts import parse_adapter
from evaluation.phases.conformance import check_conformance
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
    assert "held" in undecided[0].reason
    assert "add a state mapping for callType, held" in undecided[0].detail["hint"]
    assert outcome.details["undecided"] == 6


def test_a_state_mapping_for_what_the_hint_names_decides_them():
    # The hint names callType (unobserved) and held: mapping both pins every spec variable.
    adapter = parse_adapter(
        "state:\n"
        "  held: 'IF obs.lockState = \"locked\" THEN 1 ELSE 0'\n"
        '  callType: \'[t \\in Threads |-> IF obs.pc[t] = "idle" THEN "none" ELSE "lock"]\'\n',
        spin(),
    )
    outcome = check_conformance(
        spec_with_hidden_counter(), spin(), hidden_counter_windows(), adapter
    )
    assert outcome.details["auxiliary_state"]["rule"] == "pinned"
    assert outcome.details["state_mapping"] == {"credited": ["held", "callType"], "refused": []}
    assert outcome.details["undecided"] == 0
    assert outcome.score == 1.0, outcome.details["failing_windows"][:2]


def test_a_state_mapping_the_reachable_states_refute_decides_nothing():
    # `held` is 0 whenever the lock is free in every state the spec reaches: a mapping that
    # says 1 there builds a state the spec is never in, so it is refused and not used.
    adapter = parse_adapter(
        "state:\n"
        "  held: '1'\n"
        '  callType: \'[t \\in Threads |-> IF obs.pc[t] = "idle" THEN "none" ELSE "lock"]\'\n',
        spin(),
    )
    outcome = check_conformance(
        spec_with_hidden_counter(), spin(), hidden_counter_windows(), adapter
    )
    mapping = outcome.details["state_mapping"]
    assert mapping["credited"] == ["callType"]
    (refused,) = mapping["refused"]
    assert refused["variable"] == "held" and refused["rule"] == "reads back"
    assert refused["spec"] == 0 and refused["mapped"] == 1
    assert "the spec has held = 0 but the mapping gives 1" in refused["text"]
    assert outcome.details["per_action"]["ReleaseLock"]["undecided"] == 6
