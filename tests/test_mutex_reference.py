"""The mutex reference spec passes every window of our harness's traces and the contract's
invariants; each mutant fails exactly the windows it was written to break."""

import pytest

from evaluation.phases.invariants import check_invariants
from tests.reference_support import (
    assert_fails_exactly,
    assert_sany_accepts,
    conformance,
    mutant_names,
    rates,
    read_reference,
    task_fixtures,
)
from tests.trace_sample import first_traces

pytestmark = pytest.mark.tla

SLUG = "mutex"

contract, windows = task_fixtures(SLUG)


def _totals(windows) -> dict[str, tuple[int, int]]:
    totals: dict[str, int] = {}
    for w in windows:
        totals[w["action"]] = totals.get(w["action"], 0) + 1
    return {action: (n, n) for action, n in totals.items()}


@pytest.mark.parametrize("name", ["mutex.tla", *mutant_names(SLUG)])
def test_sany_accepts_the_spec(name):
    assert_sany_accepts("mutex", read_reference(SLUG, name), name)


def test_reference_passes_every_window(contract, windows):
    outcome = conformance(read_reference(SLUG, "mutex.tla"), contract, windows)
    assert outcome.score == 1.0
    assert rates(outcome) == _totals(windows)
    assert set(rates(outcome)) == {"AcquireLock", "TryAcquireLock", "ReleaseLock"}


def test_contract_invariants_hold_on_the_reference(contract):
    outcome = check_invariants(read_reference(SLUG, "mutex.tla"), contract)
    assert {i.name: i.verdict for i in outcome.invariants} == {
        i.name: "holds" for i in contract.invariants
    }


@pytest.mark.parametrize(
    "mutant, action",
    [
        ("flipped_guard", "AcquireLock"),
        ("wrong_post_state", "ReleaseLock"),
        ("try_lock_blocks", "TryAcquireLock"),
    ],
)
def test_mutant_fails_exactly_the_windows_of_its_action(contract, windows, mutant, action):
    assert_fails_exactly(
        SLUG, mutant, contract, first_traces(windows), lambda w: w["action"] == action
    )
