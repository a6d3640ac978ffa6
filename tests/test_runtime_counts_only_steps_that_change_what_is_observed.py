"""P2 counts an action only where a step of it changes what the contract observes (a schema
variable through the adapter), or hidden state that such an action reads. An action that
generates states and changes nothing observed is shown as firing but not counted, so a spec
that only toggles a counter ends at P1 (0.15 overall)."""

from pathlib import Path

import pytest

from evaluation.inputs.contracts import make_contract
from evaluation.phases.runtime import NO_CHANGE, check_runtime, runtime_passed
from evaluation.pipeline import score_spec
from tests.conformance_support import replace_once, spin, spin_spec, spin_windows

pytestmark = pytest.mark.tla

ATTACKS = Path(__file__).resolve().parent / "attacks" / "spin"


def by_name(outcome):
    return {a.action: a for a in outcome.actions}


# typeok_flag.tla, seen from Init, is the same counter: its flag never holds in a reachable state.
@pytest.mark.parametrize("attack", ["counter_only.tla", "typeok_flag.tla"])
def test_a_spec_that_only_toggles_a_counter_fires_nothing_and_ends_at_p1(attack):
    spec = (ATTACKS / attack).read_text()
    report = score_spec(spec, spin(), spin_windows())
    runtime = report.outcomes["runtime"]
    assert runtime.status == "ran" and runtime.score == 0.0
    for action in runtime.actions:
        assert action.detail["generated"] > 0 and action.detail["fired"]
        assert action.passed == 0 and action.detail["note"] == NO_CHANGE
        assert action.detail["changes"] == [] and action.detail["changes_state"] == ["n"]
    assert report.outcomes["conformance"].status == "skipped"
    assert report.outcomes["invariant"].status == "skipped"
    assert report.overall == pytest.approx(0.15)


def test_the_reference_spec_still_fires_every_action_and_says_what_it_changes():
    outcome = check_runtime(spin_spec(), spin())
    actions = by_name(outcome)
    assert outcome.score == 1.0
    assert actions["AcquireLock"].detail["changes"] == ["lockState", "pc", "callType"]
    assert "note" not in actions["AcquireLock"].detail


# A hidden `ready` flag: Prepare sets it, AcquireLock needs it (so Prepare feeds an observed
# step); Scribble changes `scratch`, which nothing reads.
HIDDEN = (
    ("VARIABLES lockState, pc, callType", "VARIABLES lockState, pc, callType, ready, scratch"),
    ("vars == <<lockState, pc, callType>>", "vars == <<lockState, pc, callType, ready, scratch>>"),
    (
        '  /\\ callType = [t \\in Threads |-> "none"]\n\n',
        '  /\\ callType = [t \\in Threads |-> "none"]\n'
        "  /\\ ready = FALSE\n  /\\ scratch = FALSE\n\n"
        "Prepare == ~ready /\\ ready' = TRUE /\\ UNCHANGED <<lockState, pc, callType, scratch>>\n"
        "Scribble == scratch' = ~scratch /\\ UNCHANGED <<lockState, pc, callType, ready>>\n\n",
    ),
    (
        '  /\\ lockState = "unlocked"\n  /\\ pc[t] \\in',
        '  /\\ lockState = "unlocked"\n  /\\ ready\n  /\\ pc[t] \\in',
    ),
    ("  /\\ UNCHANGED lockState\n", "  /\\ UNCHANGED <<lockState, ready, scratch>>\n"),
    (
        '  /\\ pc\' = [pc EXCEPT ![t] = "locked"]\n',
        '  /\\ pc\' = [pc EXCEPT ![t] = "locked"]\n  /\\ UNCHANGED <<ready, scratch>>\n',
    ),
    (
        '  /\\ callType\' = [callType EXCEPT ![t] = "none"]\n',
        '  /\\ callType\' = [callType EXCEPT ![t] = "none"]\n  /\\ UNCHANGED <<ready, scratch>>\n',
    ),
    (
        "Next == \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)",
        "Next == \\/ \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)\n"
        "        \\/ Prepare\n        \\/ Scribble",
    ),
)


def hidden_state_spec() -> str:
    spec = spin_spec()
    for old, new in HIDDEN:
        spec = replace_once(spec, old, new)
    return spec


def test_hidden_state_counts_only_where_an_observing_action_reads_it():
    outcome = check_runtime(hidden_state_spec(), spin())
    actions = by_name(outcome)
    assert actions["Prepare"].passed == 1
    assert actions["Prepare"].detail["changes"] == []
    assert "ready" in actions["Prepare"].detail["note"]
    assert "AcquireLock" in actions["Prepare"].detail["note"]
    assert actions["Scribble"].passed == 0
    assert actions["Scribble"].detail["note"] == NO_CHANGE
    assert outcome.score == pytest.approx(4 / 5)


def test_a_printed_mark_without_the_runs_nonce_counts_for_nothing():
    # The counter actions print what a mark looks like, for every leaf index and every change.
    forged = '<<"000000000000", k, {0, 1, 2, 3, 4, 5, 6, 7, 8}>>'
    spec = replace_once(
        (ATTACKS / "counter_only.tla").read_text(),
        "AcquireLock(t) == n' = 1 - n",
        f"AcquireLock(t) == (\\A k \\in 1..4 : PrintT({forged})) /\\ n' = 1 - n",
    )
    outcome = check_runtime(spec, spin())
    assert outcome.status == "ran" and outcome.score == 0.0
    assert not runtime_passed(outcome)


def test_a_variable_that_changes_kind_is_compared_without_an_error():
    # `scratch` goes from the string "0" to the integer 1: TLC's `#` raises on that, so P2
    # compares printed values instead, and sees a change of hidden state that no one reads.
    spec = hidden_state_spec()
    spec = replace_once(spec, "  /\\ scratch = FALSE\n", '  /\\ scratch = "0"\n')
    spec = replace_once(spec, "scratch' = ~scratch", "scratch' = 1")
    outcome = check_runtime(spec, spin())
    actions = by_name(outcome)
    assert outcome.status == "ran" and outcome.details["compared_printed_values"]
    assert actions["Scribble"].detail["error"] is None
    assert actions["Scribble"].detail["changes_state"] == ["scratch"]
    assert outcome.score == pytest.approx(4 / 5)


# Bulleted lists TLA+ reads by their columns, inside inline disjuncts of Next and across lines:
# the watch P2 wraps around each action must leave their meaning alone.
LAYOUT = r"""---- MODULE layout ----
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = 0
Next == \/ /\ x < 2
           /\ x' = x + 1 \/ x' = x + 2
           /\ UNCHANGED y
        \/ \E i \in {1, 2} : /\ y < 2
                             /\ y' = y + i
                             /\ UNCHANGED x
        \/ /\ x = 9 /\ y' = 0 /\ UNCHANGED x
====
"""


def test_the_watch_keeps_layout_sensitive_lists_as_they_were():
    contract = make_contract(module="layout")
    outcome = check_runtime(LAYOUT, contract)
    assert outcome.status == "ran", outcome.details.get("error")
    fired = {a.detail["line"]: (a.passed, a.detail["generated"]) for a in outcome.actions}
    assert fired[5][0] == 1 and fired[8][0] == 1
    assert fired[11] == (0, 0)  # never enabled: x never reaches 9
    assert outcome.score == pytest.approx(2 / 3)


def test_an_action_that_only_stutters_is_left_out_and_earns_nothing():
    # PlusCal's `Terminating`, or `\/ UNCHANGED vars` in Next: allowed by [Next]_vars anyway.
    spec = replace_once(
        spin_spec(),
        "Next == \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)",
        "Next == \\/ \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)\n"
        "        \\/ UNCHANGED vars",
    )
    outcome = check_runtime(spec, spin())
    stutter = next(a for a in outcome.actions if a.action.startswith("Next"))
    assert stutter.total == 0 and stutter.detail["stutters"]
    assert stutter.detail["generated"] > 0
    assert outcome.score == 1.0
    idle = replace_once(spec, "Next == \\/ \\E t", "Next == \\/ FALSE /\\ \\E t")
    outcome = check_runtime(idle, spin())
    assert outcome.status == "ran" and outcome.score == 0.0
    assert not runtime_passed(outcome)
