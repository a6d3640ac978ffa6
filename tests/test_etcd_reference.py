"""The etcd reference spec passes every official window and the contract's safety invariants;
each deliberately wrong variant is caught, by conformance (P3) or by an invariant."""

import pytest

from tests.reference_support import (  # noqa: F401 (the shared Raft tests run in this module)
    assert_sany_accepts,
    mutant_failures,
    read_reference,
    spec_files,
    task_fixtures,
    test_contract_safety_invariants_hold_on_the_reference,
    test_dropped_guard_passes_every_window_but_elects_two_leaders,
    test_reference_scores_p3_one,
)

pytestmark = pytest.mark.tla

SLUG = "etcd"
MODULE = "etcdraft"
ALL_PASS = {
    "ElectionTimeout": (11, 11),
    "HandleVoteRequest": (21, 21),
    "ClientProposal": (29, 29),
    "HandleAppendEntries": (154, 154),
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
    ],
)
def test_mutant_fails_windows_of_its_action_and_no_other(contract, windows, mutant, failing):
    failures = mutant_failures(SLUG, mutant, contract, windows)
    assert set(failures) == {failing}
    assert 1 <= failures[failing] <= ALL_PASS[failing][1]
