"""P2: bounded deterministic BFS, per-action coverage, evaluation errors blamed per action."""

import pytest

from evaluation.phases.runtime import check_runtime, runtime_passed

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


def contract(**runtime):
    return {
        "module": "rt",
        "constants": {"Procs": '{"p1", "p2"}'},
        "deadlock": "allowed",
        "budgets": {"runtime": {"depth": 10, "max_states": 500, "wall_seconds": 60, **runtime}},
    }


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
    strict = check_runtime(spec, {**contract(), "deadlock": "error"})
    assert strict.details["deadlock_found"]["codes"] == [2114]
    assert strict.details["deadlock_found"]["trace"]


def test_infinite_state_space_is_explored_within_bounds():
    spec = SPEC.replace("x < 3 /\\ ", "").replace("        \\/ Bad\n", "")
    outcome = check_runtime(spec, contract(depth=8, max_states=200))
    assert outcome.status == "ran" and outcome.details["completed"]
    assert outcome.details["distinct_states"] <= 200 + 10


def test_spec_that_never_finishes_is_a_timeout_within_the_budget():
    # 2^40 evaluations and no error on the way (an oversized SUBSET would only be an error).
    endless = "RECURSIVE F(_)\nF(n) == IF n = 0 THEN 0 ELSE F(n - 1) + F(n - 1)\n"
    slow = SPEC.replace("Never == FALSE", endless + "Never == F(40) = 1")
    outcome = check_runtime(slow, contract(wall_seconds=5))
    assert outcome.status == "timeout" and not runtime_passed(outcome)
    # The sandbox's wall-clock timer, not the spec or the CPU limit, ended it.
    assert outcome.details["error"] == "wall-clock limit reached; the tool was killed"


def test_constants_come_from_cfg_without_contract():
    cfg = "CONSTANTS Procs = {p1, p2}\nSPECIFICATION Spec\n"
    outcome = check_runtime(SPEC.replace("        \\/ Bad\n", ""), None, cfg)
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
