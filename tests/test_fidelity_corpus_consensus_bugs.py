"""The fidelity corpus's consensus bug reproductions: etcd, RedisRaft, Xline CURP.

Each spec goes through all four phases with the adapter a submitter would write and its own cfg and
no phase ends in an internal error; the bug reproductions show their bug as a violated contract
invariant with a counterexample. The checks and why the corpus is split by family:
tests/fidelity/checks.py. Real TLC: about 340 s here; `bench/fidelity.py` prints each spec's time.
"""

import pytest

from tests.fidelity.checks import (
    MARKS,
    goes_through_the_phases_without_a_scorer_error,
    scored,
    violated,
)

pytestmark = MARKS
SPECS = [
    "etcd (bug)",
    "redisraft (bug)",
    "curp (bug)",
]


@pytest.mark.parametrize("name", SPECS)
def test_every_corpus_spec_goes_through_the_phases_without_a_scorer_error(name):
    goes_through_the_phases_without_a_scorer_error(name)


def test_etcd_bug_is_two_leaders_in_one_term_through_a_campaigning_learner():
    trace = violated(scored("etcd (bug)"), "MoreThanOneLeaderInv")
    assert trace[-1]["vars"]["state"].count('"Leader"') >= 2
    # The learner s1 (cfg: InitialLearners = {s1}) timed out and campaigned on the way.
    assert any(step.get("action", "").startswith("Timeout") for step in trace)


def test_curp_says_which_assumption_the_pinned_commands_break():
    runtime = scored("curp (bug)").outcomes["runtime"]
    message = runtime.details["error"]["message"]
    assert message.startswith(
        "The spec's assumption at line 18, `\\A cmd \\in Commands: cmd \\in [key: Keys]`, is false "
        'for the contract\'s pinned constants (Commands = {[id |-> "c1", key |-> "k1"],'
    )
    assert "The contract pins them; the adapter cannot change a pinned value." in message
