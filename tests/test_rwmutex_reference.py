"""The rwmutex reference spec passes every window of our harness's traces and the contract's
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

SLUG = "rwmutex"
ACTIONS = {"AcquireReadLock", "AcquireWriteLock", "AcquireUpReadLock", "ReleaseLock"}

contract, windows = task_fixtures(SLUG)


@pytest.mark.parametrize("name", ["rwmutex.tla", *mutant_names(SLUG)])
def test_sany_accepts_the_spec(name):
    assert_sany_accepts("rwmutex", read_reference(SLUG, name), name)


def test_reference_passes_every_window_of_every_action(contract, windows):
    outcome = conformance(read_reference(SLUG, "rwmutex.tla"), contract, windows)
    assert outcome.score == 1.0
    assert set(rates(outcome)) == ACTIONS
    assert sum(total for _, total in rates(outcome).values()) == len(windows)


def test_contract_invariants_hold_on_the_reference(contract):
    outcome = check_invariants(read_reference(SLUG, "rwmutex.tla"), contract)
    assert {i.name: i.verdict for i in outcome.invariants} == {
        i.name: "holds" for i in contract.invariants
    }


def _read_under_upreader(w) -> bool:
    return w["action"] == "AcquireReadLock" and w["pre_state"]["lockWord"]["upreader"]


@pytest.mark.parametrize(
    "mutant, intended",
    [
        ("flipped_guard", lambda w: w["action"] == "AcquireWriteLock"),
        ("wrong_post_state", lambda w: w["action"] == "AcquireUpReadLock"),
        # Only the reads taken while an upgradeable reader holds the lock.
        ("upreader_blocks_readers", _read_under_upreader),
    ],
)
def test_mutant_fails_exactly_its_windows(contract, windows, mutant, intended):
    assert_fails_exactly(SLUG, mutant, contract, first_traces(windows), intended)


def test_reads_under_an_upgradeable_reader_are_a_proper_subset(windows):
    reads = [w for w in windows if w["action"] == "AcquireReadLock"]
    assert 0 < sum(map(_read_under_upreader, reads)) < len(reads)
