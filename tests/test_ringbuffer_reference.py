"""The ring-buffer reference spec passes every window of our harness's traces and the contract's
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

SLUG = "ringbuffer"
CAPACITY = 4

contract, windows = task_fixtures(SLUG)


def _moved(w, counter: str) -> int:
    return (w["post_state"][counter] - w["pre_state"][counter]) % (2 * CAPACITY)


@pytest.mark.parametrize("name", ["ringbuffer.tla", *mutant_names(SLUG)])
def test_sany_accepts_the_spec(name):
    assert_sany_accepts("ringbuffer", read_reference(SLUG, name), name)


def test_reference_passes_every_window(contract, windows):
    outcome = conformance(read_reference(SLUG, "ringbuffer.tla"), contract, windows)
    assert outcome.score == 1.0
    assert set(rates(outcome)) == {"Push", "Pop"}
    assert sum(total for _, total in rates(outcome).values()) == len(windows)


def test_contract_invariants_hold_on_the_reference(contract):
    outcome = check_invariants(read_reference(SLUG, "ringbuffer.tla"), contract)
    assert {i.name: i.verdict for i in outcome.invariants} == {
        i.name: "holds" for i in contract.invariants
    }


def _wraps(w) -> bool:
    counter = "tail" if w["action"] == "Push" else "head"
    return w["post_state"][counter] >= CAPACITY


@pytest.mark.parametrize(
    "mutant, intended",
    [
        # Slices: a push of more than one item.
        ("push_single", lambda w: w["action"] == "Push" and _moved(w, "tail") > 1),
        ("wrong_post_state", lambda w: w["action"] == "Pop"),
        ("wrap_at_capacity", _wraps),
    ],
)
def test_mutant_fails_exactly_its_windows(contract, windows, mutant, intended):
    assert_fails_exactly(SLUG, mutant, contract, first_traces(windows), intended)
