"""The upload check refuses what the scorer would refuse, in the tools' own words: a parse error
is a parse error with its line (never "no module header" because the parser lost the header),
SANY's semantic errors keep their messages, and an action the contract calls with the wrong
number of arguments is named with its definition's line before anything is queued."""

import pytest

from evaluation.inputs.contracts import parse_adapter
from evaluation.upload.lint import first_problem
from tests.conformance_support import replace_once, spin, spin_spec

pytestmark = pytest.mark.tla


def _line_of(text: str, fragment: str) -> int:
    return text[: text.index(fragment)].count("\n") + 1


def test_an_unclosed_parenthesis_is_a_parse_error_not_a_missing_header():
    spec = replace_once(spin_spec(), "ReleaseLock(t) ==", "ReleaseLock(t) == ((")
    problem = first_problem(spec, spin())
    assert problem.startswith("SANY rejected the module: Encountered")
    assert "No module header" not in problem
    assert " at line " in problem


def test_a_spec_without_a_header_is_still_told_so():
    spec = spin_spec().split("\n", 1)[1]
    assert first_problem(spec, spin()).startswith("No module header found")


def test_semantic_errors_keep_sanys_message_and_line():
    spec = replace_once(spin_spec(), "Init ==\n", "Init == 1 +* \n")
    problem = first_problem(spec, spin())
    line = _line_of(spec, "Init == 1 +*")
    assert f"line {line}, col" in problem
    assert "Could not find declaration or definition of symbol '+'" in problem


def test_an_action_with_another_arity_than_the_contract_calls_is_refused_with_its_line():
    spec = replace_once(spin_spec(), "AcquireLock(t) ==", "AcquireLock(t, x) ==")
    spec = replace_once(spec, "AcquireLock(t) \\/", "AcquireLock(t, 1) \\/")
    problem = first_problem(spec, spin())
    line = _line_of(spec, "AcquireLock(t, x) ==")
    assert problem.startswith(f"Line {line}: the operator AcquireLock requires 2 argument(s)")
    assert "`AcquireLock(actor)`" in problem
    # The same spec with an adapter that calls it rightly passes.
    adapter = parse_adapter(
        "actions:\n  AcquireLock: AcquireLock(actor, 1)\n  ReleaseLock: ReleaseLock(actor)\n",
        spin(),
    )
    assert first_problem(spec, spin(), adapter) == ""
