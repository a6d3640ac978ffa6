"""P1: whole-module SANY, then per-definition isolation with the spec's own declarations."""

import pytest

from evaluation.inputs.contracts import make_contract
from evaluation.phases.syntax import check_syntax, syntax_passed

pytestmark = pytest.mark.tla

CONTRACT = make_contract(module="spin", budgets={"syntax": {"wall_seconds": 60}})
GOOD = r"""---- MODULE spin ----
EXTENDS Naturals, Sequences, SequencesExt
CONSTANT N
VARIABLES x, q
Init == x = 0 /\ q = <<>>
Inc == x < N /\ x' = x + 1 /\ q' = Append(q, x)
Pop == q # <<>> /\ q' = Tail(q) /\ x' = Last(q)
Next == Inc \/ Pop
====
"""


def rows(outcome):
    return {r["name"]: r for r in outcome.details["definitions"]}


def test_accepted_module_scores_one():
    outcome = check_syntax(GOOD, CONTRACT)
    assert (outcome.status, outcome.score) == ("ran", 1.0)
    assert syntax_passed(outcome)
    assert [r["verdict"] for r in outcome.details["definitions"]] == ["ok"] * 4


def test_parse_error_gives_partial_credit_with_line():
    spec = GOOD.replace("Append(q, x)", "Append(q, x")
    outcome = check_syntax(spec, CONTRACT)
    assert not syntax_passed(outcome)
    by_name = rows(outcome)
    assert by_name["Inc"]["verdict"] == "error" and by_name["Inc"]["line"] == 6
    assert "Parse Error" in by_name["Inc"]["message"]
    assert by_name["Init"]["verdict"] == "ok"
    total = outcome.details["total"]
    assert outcome.score == round(0.5 * outcome.details["parsed"] / total, 6) < 0.5


def test_unknown_operator_is_an_error_not_stubbed():
    outcome = check_syntax(GOOD.replace("Last(q)", "Lastt(q)"), CONTRACT)
    by_name = rows(outcome)
    assert by_name["Pop"]["verdict"] == "error"
    assert "Unknown operator: `Lastt'" in by_name["Pop"]["message"]
    assert "line 7" in by_name["Pop"]["message"]
    assert outcome.score == 0.5 * 3 / 4


def test_semantic_error_is_caught_although_sany_exits_zero():
    outcome = check_syntax(GOOD.replace("Init == x = 0", "Init == x = 0 /\\ N(1)"), CONTRACT)
    assert rows(outcome)["Init"]["verdict"] == "error"
    assert outcome.score == 0.5 * 3 / 4


def test_a_module_named_otherwise_than_the_contract_is_checked_under_its_own_name():
    # Specs written for the original benchmark are named `1_mutex`, `1_etcdraft`: the scorer
    # uses the spec's own name, never renames or refuses it.
    outcome = check_syntax(GOOD.replace("MODULE spin", "MODULE 1_spin"), CONTRACT)
    assert outcome.details["module"] == "1_spin"
    assert outcome.details["whole_module"] == {"ok": True, "messages": []}
    assert outcome.score == 1.0


def test_extending_ioutils_is_refused():
    outcome = check_syntax(GOOD.replace("SequencesExt", "SequencesExt, IOUtils"), CONTRACT)
    assert "module IOUtils is refused" in outcome.details["whole_module"]["messages"][0]
    assert outcome.score < 1


def test_without_contract_the_declared_module_is_used_and_results_repeat():
    first = check_syntax(GOOD, make_contract())
    assert first.details["module"] == "spin" and first.score == 1.0
    broken = GOOD.replace("Tail(q)", "Tail(q")
    a, b = check_syntax(broken, make_contract()), check_syntax(broken, make_contract())
    assert (a.score, a.details["definitions"]) == (b.score, b.details["definitions"])


REFERENCE = (
    __import__("pathlib").Path(__file__).resolve().parent.parent
    / "tasks_data"
    / "spin"
    / "reference"
    / "spin.tla"
).read_text()
REFERENCE_NAMES = [
    "vars",
    "TypeOK",
    "Init",
    "StartLock",
    "AcquireLock",
    "ReleaseLock",
    "Next",
    "Spec",
]


def broken_reference(old: str, new: str):
    """check_syntax on the spin reference with one edit; every definition must stay listed."""
    spec = REFERENCE.replace(old, new)
    assert spec != REFERENCE
    outcome = check_syntax(spec, make_contract(module="spin"))
    by_name = rows(outcome)
    assert list(by_name) == REFERENCE_NAMES
    return outcome, by_name


def test_unclosed_paren_in_next_keeps_next_counted_and_failing():
    outcome, by_name = broken_reference(
        "Next == \\E t \\in Threads : StartLock(t)", "Next == \\E t \\in Threads : (StartLock(t)"
    )
    assert by_name["Next"]["verdict"] == "error" and by_name["Next"]["line"] == 48
    assert (
        "Parse Error" in by_name["Next"]["message"] or "Encountered" in by_name["Next"]["message"]
    )
    assert [n for n, r in by_name.items() if r["verdict"] == "error"] == ["Next"]
    assert outcome.score == 0.5 * 7 / 8


def test_unclosed_paren_does_not_swallow_or_rename_later_definitions():
    # tree-sitter's recovery turned `StartLock(t) ==` into a definition named `t` and hid the
    # actions after it; every definition must still be listed and judged on its own text.
    outcome, by_name = broken_reference(
        'StartLock(t) ==\n  /\\ pc[t] = "idle"', 'StartLock(t) ==\n  ( /\\ pc[t] = "idle"'
    )
    assert [n for n, r in by_name.items() if r["verdict"] == "error"] == ["StartLock"]
    assert by_name["StartLock"]["line"] == 23
    assert outcome.score == 0.5 * 7 / 8
