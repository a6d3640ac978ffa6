"""A spec whose ASSUME is false for the contract's pinned constants fails, and every phase that
runs TLC on it says which assumption, with its text, and which pinned values it reads: the
contract pins them for every submission, so no adapter can make the assumption true."""

import pytest

from evaluation.inputs.contracts import parse_adapter
from evaluation.phases.conformance import check_conformance
from evaluation.phases.invariants import check_invariants
from evaluation.phases.runtime import check_runtime
from tests.conformance_support import replace_once, spin_spec, spin_windows
from tests.conformance_support import spin as spin_contract

pytestmark = pytest.mark.tla


@pytest.fixture(scope="module")
def spin():
    return spin_contract()


PINNED = 'Threads = {"0", "1", "2"}'
CANNOT_CHANGE = "The contract pins them; the adapter cannot change a pinned value."


def assuming(assumption: str, extra: str = "") -> str:
    """The spin reference spec with `extra` lines and an ASSUME after its CONSTANT line."""
    return replace_once(
        spin_spec(), "CONSTANT Threads\n", f"CONSTANT Threads\n{extra}ASSUME {assumption}\n"
    )


def assumption_line(spec: str) -> int:
    return next(i for i, line in enumerate(spec.splitlines(), 1) if line.startswith("ASSUME"))


def test_runtime_quotes_the_assumption_and_the_pinned_value_it_reads(spin):
    spec = assuming('Threads \\subseteq {"0", "1"}')
    outcome = check_runtime(spec, spin)
    assert (outcome.status, outcome.score) == ("error", 0)
    message = outcome.details["error"]["message"]
    line = assumption_line(spec)
    assert message.startswith(
        f'The spec\'s assumption at line {line}, `Threads \\subseteq {{"0", "1"}}`, is false '
        f"for the contract's pinned constants ({PINNED}). {CANNOT_CHANGE}"
    )
    # TLC's own words follow.
    assert f"Assumption line {line}, col 8 to line {line}" in message


def test_invariants_name_it_through_the_definitions_it_uses_in_one_tlc_run(spin):
    spec = assuming("AtMostTwo", extra='AtMostTwo == Threads \\subseteq {"0", "1"}\n')
    outcome = check_invariants(spec, spin)
    assert {o.verdict for o in outcome.invariants} == {"error"}
    line = assumption_line(spec)
    for invariant in outcome.invariants:
        assert f"The spec's assumption at line {line}, `AtMostTwo`, is false" in invariant.reason
        assert f"({PINNED}). {CANNOT_CHANGE}" in invariant.reason
    assert len(outcome.details["runs"]) == 1


def test_conformance_says_it_once_instead_of_a_verdict_per_window(spin):
    spec = assuming('"2" \\notin Threads')
    outcome = check_conformance(spec, spin, spin_windows())
    assert outcome.status == "error"
    error = outcome.details["error"]
    assert f'`"2" \\notin Threads`, is false for the contract\'s pinned constants ({PINNED})' in (
        error
    )
    assert CANNOT_CHANGE in error


def test_an_assumption_on_the_adapters_constant_points_at_the_adapter(spin):
    spec = assuming('MaxRetries = "many"', extra="CONSTANT MaxRetries\n")
    adapter = parse_adapter("constants:\n  MaxRetries: '\"few\"'\n", spin)
    message = check_runtime(spec, spin, adapter=adapter).details["error"]["message"]
    assert (
        f'The spec\'s assumption at line {assumption_line(spec)}, `MaxRetries = "many"`, is '
        'false for the constants the adapter gives it (MaxRetries = "few")'
    ) in message
    assert "pinned" not in message
