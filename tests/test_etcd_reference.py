"""The etcd reference spec passes every window of the official traces (our harness's, followed
from Init) and the contract's safety invariants; each deliberately wrong variant is caught, by
conformance (P3) and, for the dropped guard, by an invariant too."""

import pytest

from tests.reference_support import (  # noqa: F401 (the shared Raft tests run in this module)
    assert_invariant_violated,
    assert_sany_accepts,
    mutant_failures,
    read_reference,
    spec_files,
    task_fixtures,
    test_contract_safety_invariants_hold_on_the_reference,
    test_reference_scores_p3_one,
)

pytestmark = pytest.mark.tla

SLUG = "etcd"
MODULE = "etcdraft"
ALL_PASS = {
    "ElectionTimeout": (39, 39),
    "HandleVoteRequest": (61, 61),
    "ClientProposal": (139, 139),
    "HandleAppendEntries": (484, 484),
    "HandleHeartbeat": (337, 337),
}
SAFETY = (
    "MoreThanOneLeaderInv",
    "EtcdStateTransitionInv",
    "PreVoteTermStabilityInv",
    "VoteConsistencyInv",
    "TermValidityInv",
    "CommitIndexConsistencyInv",
)

contract, windows = task_fixtures(SLUG)


@pytest.mark.parametrize("name", spec_files(MODULE))
def test_sany_accepts_the_spec(name):
    assert_sany_accepts(MODULE, read_reference(SLUG, name), name)


@pytest.mark.parametrize(
    "mutant, failing",
    [
        ("flipped_guard", "HandleVoteRequest"),
        ("wrong_post_state", "ElectionTimeout"),
        ("merged_steps", "ClientProposal"),
        # The harness traces show refused votes (a voter that voted for another): the dropped
        # guard grants them (SysMoBench's windows showed only granted votes; it passed them all).
        ("dropped_guard", "HandleVoteRequest"),
    ],
)
def test_mutant_fails_windows_of_its_action_and_no_other(contract, windows, mutant, failing):
    failures = mutant_failures(SLUG, mutant, contract, windows)
    assert set(failures) == {failing}
    assert 1 <= failures[failing] <= ALL_PASS[failing][1]


def test_dropped_guard_elects_two_leaders(contract):
    spec = read_reference(SLUG, "mutants/dropped_guard.tla")
    assert_invariant_violated(MODULE, spec, contract, "MoreThanOneLeaderInv")
