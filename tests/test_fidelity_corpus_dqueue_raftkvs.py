"""The fidelity corpus's PGo dqueue (5 specs) and raftkvs (2 specs).

Each spec goes through all four phases with the adapter a submitter would write and its own cfg and
no phase ends in an internal error. The checks and why the corpus is split by family:
tests/fidelity/checks.py. Real TLC: about 190 s here; `bench/fidelity.py` prints each spec's time.
"""

import pytest

from tests.fidelity.checks import MARKS, goes_through_the_phases_without_a_scorer_error

pytestmark = MARKS
SPECS = [
    "dqueue/specula/claude",
    "dqueue/specula/deepseek",
    "dqueue/specula/gemini",
    "dqueue/specula/gpt5",
    "dqueue/simpleloop/claude",
    "raftkvs/claude",
    "raftkvs/gpt5",
]


@pytest.mark.parametrize("name", SPECS)
def test_every_corpus_spec_goes_through_the_phases_without_a_scorer_error(name):
    goes_through_the_phases_without_a_scorer_error(name)
