"""P2: bounded deterministic BFS, per-action coverage, evaluation errors blamed per action."""

import json

import pytest

from evaluation.inputs.contracts import make_contract
from evaluation.phases.runtime import check_runtime, runtime_passed
from evaluation.results import InfrastructureFailure

pytestmark = pytest.mark.tla

SPEC = r"""---- MODULE rt ----
EXTENDS Naturals, Sequences, TLC
CONSTANT Procs
VARIABLES x, y
Init == x = 0 /\ y = 0
A(i) == x < 3 /\ x' = x + 1 /\ UNCHANGED y
B == y < 2 /\ y' = y + 1 /\ UNCHANGED x
Bad == x = 2 /\ x' = <<1>>[5] /\ UNCHANGED y
Never == FALSE /\ UNCHANGED <<x, y>>
Next == \/ \E i \in Procs : A(i)
        \/ B
        \/ Bad
        \/ Never
====
"""


def contract(deadlock="allowed", **runtime):
    return make_contract(
        module="rt",
        constants={"Procs": '{"p1", "p2"}'},
        deadlock=deadlock,
        budgets={"runtime": {"depth": 10, "max_states": 500, "wall_seconds": 60, **runtime}},
    )


def by_name(outcome):
    return {a.action: a for a in outcome.actions}


def test_evaluation_error_in_one_action_costs_only_that_action():
    outcome = check_runtime(SPEC, contract())
    actions = by_name(outcome)
    assert outcome.status == "ran"
    assert set(actions) == {"A", "B", "Bad", "Never"}
    assert (
        actions["Bad"].passed == 0 and "out of domain" in actions["Bad"].detail["error"]["message"]
    )
    assert actions["A"].passed == 1 and actions["B"].passed == 1
    assert actions["Never"].passed == 0 and actions["Never"].detail["generated"] == 0
    assert outcome.score == 0.5
    assert runtime_passed(outcome)


def test_same_spec_twice_gives_identical_results():
    first, second = check_runtime(SPEC, contract()), check_runtime(SPEC, contract())
    assert first.score == second.score
    assert [(a.action, a.passed, a.detail) for a in first.actions] == [
        (a.action, a.passed, a.detail) for a in second.actions
    ]
    assert first.details["distinct_states"] == second.details["distinct_states"]


def test_deadlock_policy_error_reports_the_deadlock():
    spec = SPEC.replace("        \\/ Bad\n", "")
    allowed = check_runtime(spec, contract())
    assert allowed.details["deadlock"] == "allowed" and "deadlock_found" not in allowed.details
    strict = check_runtime(spec, contract(deadlock="error"))
    assert strict.details["deadlock_found"]["codes"] == [2114]
    assert strict.details["deadlock_found"]["trace"]


def test_infinite_state_space_is_explored_within_bounds():
    spec = SPEC.replace("x < 3 /\\ ", "").replace("        \\/ Bad\n", "")
    outcome = check_runtime(spec, contract(depth=8, max_states=200))
    assert outcome.status == "ran" and outcome.details["completed"]
    assert outcome.details["distinct_states"] <= 200 + 10


def test_spec_that_never_finishes_reaches_the_safety_net_and_gets_no_verdict():
    # 2^40 evaluations and no error on the way (an oversized SUBSET would only be an error).
    endless = "RECURSIVE F(_)\nF(n) == IF n = 0 THEN 0 ELSE F(n - 1) + F(n - 1)\n"
    slow = SPEC.replace("Never == FALSE", endless + "Never == F(40) = 1")
    with pytest.raises(InfrastructureFailure) as failure:
        check_runtime(slow, contract(wall_seconds=5))
    # The sandbox's wall-clock timer, not the spec or the CPU limit, ended it.
    assert "runtime check reached its safety-net time limit of 5 s" in str(failure.value)
    assert "wall-clock limit reached" in str(failure.value)


def test_constants_come_from_cfg_without_contract():
    cfg = "CONSTANTS Procs = {p1, p2}\nSPECIFICATION Spec\n"
    outcome = check_runtime(SPEC.replace("        \\/ Bad\n", ""), make_contract(), cfg)
    assert by_name(outcome)["A"].passed == 1 and outcome.score == round(2 / 3, 6)


def test_error_located_only_by_nested_positions_is_blamed_on_its_action():
    # TLC's overflow error names no position itself; only the 2103 list ("Line 9, column 10 to
    # line 9, column 68 in rt") says where it happened.
    spec = SPEC.replace("Never == FALSE", "Never == Cardinality(SUBSET SUBSET (1..6)) = 0")
    spec = spec.replace("TLC\n", "TLC, FiniteSets\n", 1)
    outcome = check_runtime(spec, contract())
    actions = by_name(outcome)
    assert (
        actions["Never"].passed == 0 and "Overflow" in actions["Never"].detail["error"]["message"]
    )
    assert actions["A"].passed == 1 and actions["B"].passed == 1
    assert outcome.score == 0.5


UNFINGERPRINTABLE = r"""---- MODULE rt ----
EXTENDS Naturals, TLC
CONSTANT Procs
VARIABLES x
Init == x = 0
Step == x = 0 /\ x' = 1
Grow == x = 1 /\ x' = Nat
Next == Step \/ Grow
====
"""


def test_a_crash_no_action_can_be_blamed_for_is_a_phase_error_with_tlcs_message():
    # TLC cannot fingerprint a successor holding Nat; its error names no position of an action.
    outcome = check_runtime(UNFINGERPRINTABLE, contract())
    assert (outcome.status, outcome.score) == ("error", 0.0)
    assert not outcome.details["completed"]
    assert "contains Nat" in outcome.details["error"]["message"]
    assert not runtime_passed(outcome)


def test_an_assert_in_the_only_action_fails_that_action_and_nothing_crashes():
    # Disabling the failing action leaves `Next == FALSE`: the rerun prints no coverage.
    spec = SPEC.replace(
        "Next == \\/ \\E i \\in Procs : A(i)\n        \\/ B\n        \\/ Bad\n        \\/ Never",
        "Next == x' = 1 /\\ y' = 1 /\\ Assert(FALSE, \"boom\")",
    )
    spec = spec.replace("Next ==", "Only ==").replace("====", "Next == Only\n====")
    outcome = check_runtime(spec, contract())
    assert (outcome.status, outcome.score) == ("ran", 0.0)
    [only] = outcome.actions
    assert only.action == "Only" and only.passed == 0
    assert '"boom"' in only.detail["error"]["message"]


RANDOM = r"""---- MODULE rt ----
EXTENDS Naturals, TLC
VARIABLES x
Init == x = 0
Pick == x = 0 /\ x' = RandomElement(1..4)
F1 == x = 1 /\ x' = 10
F2 == x = 2 /\ x' = 20
F3 == x = 3 /\ x' = 30
F4 == x = 4 /\ x' = 40
Next == Pick \/ F1 \/ F2 \/ F3 \/ F4
====
"""
SCORE_IN_A_PROCESS = """
import json, sys
from evaluation.phases.runtime import check_runtime
from evaluation.inputs.contracts import make_contract
contract = make_contract(module="rt", budgets={"runtime": {"depth": 10}})
outcome = check_runtime(sys.stdin.read(), contract)
print(json.dumps([outcome.status, outcome.score, [(a.action, a.passed) for a in outcome.actions]]))
"""


def test_a_spec_using_random_element_scores_the_same_in_six_processes():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    results = {
        subprocess.run(
            [sys.executable, "-c", SCORE_IN_A_PROCESS],
            input=RANDOM,
            capture_output=True,
            text=True,
            cwd=root,
            check=True,
        ).stdout.strip()
        for _ in range(6)
    }
    assert len(results) == 1, results
    status, score, _actions = json.loads(results.pop())
    assert (status, score) == ("ran", 0.4)  # Pick and exactly one F<i>
