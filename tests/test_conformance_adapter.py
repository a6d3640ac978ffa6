"""A spec with its own variable and action names scores through an adapter; without a TypeOK
its auxiliary state comes from following each trace from the spec's own Init."""

import pytest

from evaluation.inputs.contracts import parse_adapter
from evaluation.phases.conformance import check_conformance
from tests.conformance_support import spin, spin_windows

pytestmark = pytest.mark.tla

RENAMED = r"""---- MODULE spin ----
EXTENDS TLC
CONSTANT Threads
VARIABLES lock, state
Init == lock = FALSE /\ state = [t \in Threads |-> "idle"]
Enter(t) == state[t] = "idle" /\ state' = [state EXCEPT ![t] = "spinning"] /\ UNCHANGED lock
Grab(t) ==
  /\ ~lock /\ state[t] \in {"idle", "spinning"}
  /\ lock' = TRUE /\ state' = [state EXCEPT ![t] = "holding"]
Drop(t) == state[t] = "holding" /\ lock' = FALSE /\ state' = [state EXCEPT ![t] = "idle"]
Next == \E t \in Threads : Enter(t) \/ Grab(t) \/ Drop(t)
====
"""

ADAPTER = r"""
variables:
  lockState: 'IF lock THEN "locked" ELSE "unlocked"'
  pc: >-
    [t \in Threads |-> CASE state[t] = "spinning" -> "acquiring"
                        [] state[t] = "holding" -> "locked" [] OTHER -> "idle"]
actions:
  AcquireLock: 'Grab(actor)'
  ReleaseLock: 'Drop(actor)'
"""

SWAPPED = ADAPTER.replace("'Grab(actor)'", "'Drop(actor)'").replace(
    "ReleaseLock: 'Drop(actor)'", "ReleaseLock: 'Grab(actor)'"
)


def test_renamed_spec_scores_through_the_adapter():
    windows = spin_windows()
    outcome = check_conformance(RENAMED, spin(), windows, parse_adapter(ADAPTER, spin()))
    assert outcome.score == 1.0, outcome.details.get("failing_windows", [])[:2]
    assert {w.verdict for w in outcome.windows} == {"pass"}
    assert outcome.details["auxiliary_state"]["rule"] == "followed"
    # Every trace was followed to its end: none is left, none stopped at a bound.
    assert outcome.details["follow_bounds"]["work_bound_reached"] is False
    assert all(row["followed"] == row["events"] for row in outcome.details["traces"])


def test_adapter_that_maps_the_wrong_actions_fails_them():
    windows = spin_windows()[:30]
    outcome = check_conformance(RENAMED, spin(), windows, parse_adapter(SWAPPED, spin()))
    assert outcome.score == 0.0
    assert {w.verdict for w in outcome.windows} == {"fail"}
