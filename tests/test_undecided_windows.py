"""Windows whose pre-state no state the spec reaches by following the trace shows are
`undecided` (with the reason and a hint), shown apart from failures, and never count as passed;
a state mapping in the adapter decides nothing (it is ignored: no state is built from a
window)."""

import pytest

from evaluation.inputs.contracts import parse_adapter
from evaluation.phases.conformance import check_conformance
from evaluation.phases.conformance.follow import HINT_UNBRIDGED
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
