"""Windows whose pre-state no rule can build are `undecided` (with the reason and a hint), shown
apart from failures, and never count as passed; a state mapping in the adapter decides them."""

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
    assert outcome.details["undecided"] == 0
    assert outcome.score == 1.0, outcome.details["failing_windows"][:2]
