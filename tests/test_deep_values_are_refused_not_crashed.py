"""A value the spec makes TLC print deeper than the scorer reads (`tlcvalue.MAX_DEPTH`) is refused
with a typed reason, never a RecursionError (docs/decisions/0018-deep-values-refused.md).

The attack (rebuilt from the issue): the allow-everything-safe spin spec plus a hidden variable
holding a constant nested 990 levels deep, built from 90-level operators so that the upload's
100-level bracket cap lets it through. It used to end P3 in an internal error (RecursionError in
the value reader), which P4's credit did not read as a P3 failure: 0.650. Now P3 is an error with
its reason, P4 earns nothing on it, and the spec keeps P1 and P2 only (0.30)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from evaluation.phases.conformance.diagnose import read_tagged
from evaluation.pipeline import score_spec
from evaluation.tla.tlcvalue import (
    MAX_DEPTH,
    FrozenDict,
    TlcValueError,
    TlcValueTooDeep,
    json_value,
    parse_tlc_value,
    to_json_like,
)
from evaluation.tla.values import ValueEncodingError, to_tla
from evaluation.upload.lint import first_problem
from tests.conformance_support import spin, spin_windows
from tests.trace_sample import first_traces

ATTACKS = Path(__file__).resolve().parent / "attacks"
LEVELS, STEP = 990, 90


def nested(depth: int, open_: str = "<<", close: str = ">>") -> str:
    return open_ * depth + "0" + close * depth


@pytest.fixture
def low_recursion_limit():
    """Python's limit well below the depths read: only an iterative reader survives it."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(200, MAX_DEPTH + 50))
    yield
    sys.setrecursionlimit(old)


@pytest.mark.parametrize(
    ("open_", "close"), [("<<", ">>"), ("{", "}"), ("[a |-> ", "]"), ("(1 :> ", ")")]
)
def test_a_value_deeper_than_the_bound_is_refused_with_its_reason(open_, close):
    with pytest.raises(TlcValueTooDeep) as refused:
        parse_tlc_value(nested(LEVELS, open_, close))
    assert refused.value.reason == "value_too_deep"
    assert refused.value.limit == MAX_DEPTH
    # Not a TlcValueError: a reader that skips unreadable prints must not skip this one.
    assert not isinstance(refused.value, TlcValueError)


def test_a_value_at_the_bound_is_read_and_used_without_recursion(low_recursion_limit):
    value = parse_tlc_value(nested(MAX_DEPTH))
    for _ in range(MAX_DEPTH):
        assert isinstance(value, tuple) and len(value) == 1
        value = value[0]
    assert value == 0
    record = parse_tlc_value(nested(MAX_DEPTH - 1, "[a |-> ", "]"))
    shown = json_value(to_json_like(record))
    for _ in range(MAX_DEPTH - 1):
        shown = shown["a"]
    assert shown == 0


def test_a_function_body_is_bound_for_each_element_of_its_domain():
    value = parse_tlc_value("[x \\in {1, 2} |-> <<x, [f |-> {x}]>>]")
    assert isinstance(value, FrozenDict)
    assert to_json_like(value) == {
        1: [1, {"f": parse_tlc_value("{1}")}],
        2: [2, {"f": parse_tlc_value("{2}")}],
    }


def test_a_deep_print_among_the_scorers_tagged_prints_is_refused_not_skipped():
    output = f'<<"abc1", 1, {nested(LEVELS)}>>\n<<"abc1", 2, 0>>'
    with pytest.raises(TlcValueTooDeep):
        read_tagged(output, "abc", "1")


def test_a_json_value_deeper_than_the_bound_is_refused_not_crashed(low_recursion_limit):
    deep: object = 0
    for _ in range(LEVELS):
        deep = [deep]
    with pytest.raises(ValueEncodingError, match="nested deeper than"):
        to_tla({"x": deep})
    shallow: object = 0
    for _ in range(MAX_DEPTH - 1):
        shallow = {"a": shallow}
    assert to_tla(shallow).count(":>") == MAX_DEPTH - 1


def deep_constant_attack() -> str:
    """allow_everything_safe plus `junk`, a variable that holds a 990-level constant."""
    spec = (ATTACKS / "spin" / "allow_everything_safe.tla").read_text()
    definitions, inner = [], "0"
    for i in range(LEVELS // STEP):
        definitions.append(f"Deep{i} == {'<<' * STEP}{inner}{'>>' * STEP}")
        inner = f"Deep{i}"
    for old, new in [
        ("VARIABLES lockState, pc, callType", "VARIABLES lockState, pc, callType, junk"),
        ("vars == <<lockState, pc, callType>>", "vars == <<lockState, pc, callType, junk>>"),
        ("Phases ==", "\n".join(definitions) + "\n\nPhases =="),
        ('  /\\ lockState = "unlocked"\n', f'  /\\ lockState = "unlocked"\n  /\\ junk = {inner}\n'),
        (
            "    /\\ callType' = [callType EXCEPT ![t] = c]",
            "    /\\ callType' = [callType EXCEPT ![t] = c]\n    /\\ UNCHANGED junk",
        ),
    ]:
        assert spec.count(old) == 1, old
        spec = spec.replace(old, new)
    return spec


@pytest.mark.tla
def test_the_deep_constant_attack_crashes_nothing_and_keeps_only_p1_and_p2():
    spec = deep_constant_attack()
    assert first_problem(spec, spin()) == ""  # the upload lets it through
    report = score_spec(spec, spin(), first_traces(spin_windows()))
    for name, outcome in report.outcomes.items():
        assert "internal" not in outcome.details, (name, outcome.details.get("error"))
        assert "RecursionError" not in str(outcome.details), name
    conformance = report.outcomes["conformance"]
    assert conformance.score == 0
    if conformance.status == "error":
        assert conformance.details["refused"] == "value_too_deep"
        assert conformance.details["limit"] == MAX_DEPTH
    else:
        # P3 follows the traces without reading the constant (no failing event's states are
        # printed): the allow-everything part accepts fair negatives, and P3 is 0 for that.
        assert conformance.status == "ran"
        assert all(
            row.get("specificity_failure") for row in conformance.details["per_action"].values()
        )
    # P4's credit reads P3: an error there withholds it, so only P1 and P2 are left.
    assert report.outcomes["invariant"].score == 0
    assert report.overall <= 0.30 + 1e-9
