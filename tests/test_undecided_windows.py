"""Windows whose pre-state no rule can build are `undecided` (with the reason and a hint), shown
apart from failures, and never count as passed; a state mapping in the adapter decides them."""

import pytest

from evaluation.contracts import parse_adapter
from evaluation.phases.conformance import check_conformance
from tests.conformance_support import replace_once, spin, spin_spec, spin_windows

pytestmark = pytest.mark.tla


def spec_with_hidden_counter() -> str:
    """The reference spec plus a variable the traces never show, whose TypeOK admits no value
    while the lock is held: a locked window has no pre-state under the TypeOK rule."""
    spec = replace_once(
        spin_spec(), "VARIABLES lockState, pc, callType", "VARIABLES lockState, pc, callType, held"
    )
    spec = replace_once(
        spec, "vars == <<lockState, pc, callType>>", "vars == <<lockState, pc, callType, held>>"
    )
    spec = replace_once(
        spec,
        '  /\\ lockState \\in {"unlocked", "locked"}\n',
        '  /\\ lockState \\in {"unlocked", "locked"}\n  /\\ held \\in {0}\n'
        '  /\\ lockState = "locked" => held = 1\n',
    )
    spec = replace_once(
        spec,
        '  /\\ lockState = "unlocked"\n  /\\ pc = [t',
        '  /\\ lockState = "unlocked"\n  /\\ held = 0\n  /\\ pc = [t',
    )
    spec = replace_once(
        spec,
        '  /\\ pc\' = [pc EXCEPT ![t] = "acquiring"]\n',
        '  /\\ pc\' = [pc EXCEPT ![t] = "acquiring"]\n  /\\ UNCHANGED held\n',
    )
    spec = replace_once(
        spec, '  /\\ lockState\' = "locked"\n', "  /\\ lockState' = \"locked\"\n  /\\ held' = 1\n"
    )
    spec = replace_once(
        spec,
        '  /\\ lockState\' = "unlocked"\n',
        "  /\\ lockState' = \"unlocked\"\n  /\\ held' = 0\n",
    )
    return spec


def windows():
    w = spin_windows()
    return [x for x in w if x["action"] == "AcquireLock"][:6] + [
        x for x in w if x["action"] == "ReleaseLock"
    ][:6]


def test_unbuildable_pre_states_are_undecided_with_a_hint_and_do_not_pass():
    outcome = check_conformance(spec_with_hidden_counter(), spin(), windows())
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
    outcome = check_conformance(spec_with_hidden_counter(), spin(), windows(), adapter)
    assert outcome.details["auxiliary_state"]["rule"] == "pinned"
    assert outcome.details["undecided"] == 0
    assert outcome.score == 1.0, outcome.details["failing_windows"][:2]
