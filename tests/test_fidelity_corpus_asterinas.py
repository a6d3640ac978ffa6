"""The fidelity corpus's Asterinas bug reproductions: mutex and rwmutex.

Each spec goes through all four phases with the adapter a submitter would write and its own cfg and
no phase ends in an internal error; the bug reproductions show their bug as a violated contract
invariant with a counterexample. The checks and why the corpus is split by family:
tests/fidelity/checks.py. Real TLC: about 430 s here; `bench/fidelity.py` prints each spec's time.
"""

import pytest

from tests.fidelity.checks import (
    MARKS,
    goes_through_the_phases_without_a_scorer_error,
    scored,
    violated,
)

pytestmark = MARKS
SPECS = ["mutex (bug)", "rwmutex (bug)"]


@pytest.mark.parametrize("name", SPECS)
def test_every_corpus_spec_goes_through_the_phases_without_a_scorer_error(name):
    goes_through_the_phases_without_a_scorer_error(name)


def test_mutex_bug_is_two_threads_in_the_critical_section():
    trace = violated(scored("mutex (bug)"), "MutualExclusion")
    last = trace[-1]["vars"]
    # The last state has two threads at phase "CS" (the spec's own names, as TLC prints them).
    assert last["phase"].count('"CS"') == 2
