"""P2's table names an action by what it calls: a disjunct `\\E c \\in pending : Send(c)` whose
set is state is reported by TLC under the name of Next, and is shown as Send, its own action."""

import pytest

from evaluation.inputs.contracts import make_contract
from evaluation.phases.runtime import check_runtime

pytestmark = pytest.mark.tla

SPEC = r"""---- MODULE rt ----
EXTENDS Naturals
VARIABLES x, pending
Init == x = 0 /\ pending = {1, 2}
Send(c) == x < 3 /\ x' = x + c /\ UNCHANGED pending
Tick == x < 2 /\ x' = x + 1 /\ UNCHANGED pending
Next == \/ \E c \in pending : Send(c)
        \/ Tick
====
"""
BUDGET = {"depth": 10, "max_states": 500, "wall_seconds": 60}
CONTRACT = make_contract(module="rt", budgets={"runtime": BUDGET})


def test_an_inline_disjunct_is_named_by_the_action_it_calls():
    outcome = check_runtime(SPEC, CONTRACT)
    names = [a.action for a in outcome.actions]
    assert "Next" not in names
    assert sorted(names) == ["Send", "Tick"]
    send = next(a for a in outcome.actions if a.action == "Send")
    # The line of the disjunct in the spec, where TLC locates the action it reports.
    line = SPEC.splitlines().index("Next == \\/ \\E c \\in pending : Send(c)") + 1
    assert send.passed == 1 and send.detail["line"] == line
