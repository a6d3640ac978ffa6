"""The redisraft reference spec passes every official window and the contract's safety invariants;
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

SLUG = MODULE = "redisraft"
ALL_PASS = {
    "ElectionTimeout": (4, 4),
    "BecomeCandidate": (4, 4),
    "BecomeLeader": (4, 4),
    "RecvRequestVote": (16, 16),
    "RecvAppendEntries": (108, 108),
}
SAFETY = (
    "MoreThanOneLeaderInv",
    "RaftStateTransitionInv",
    "PreCandidateTermStabilityInv",
    "VoteConsistencyInv",
    "TermValidityInv",
    "CommitIndexConsistencyInv",
)

contract, windows = task_fixtures(SLUG)


@pytest.mark.parametrize("name", spec_files(MODULE))
def test_sany_accepts_the_spec(name):
    assert_sany_accepts(MODULE, read_reference(SLUG, name), name)


@pytest.mark.parametrize(
    "mutant, failing, count",
    [
        ("flipped_guard", "BecomeLeader", 4),
        # Only the 8 real votes move the voter's term; the 8 pre-vote answers still pass.
        ("wrong_post_state", "RecvRequestVote", 8),
        ("merged_steps", "ElectionTimeout", 4),
    ],
)
def test_mutant_fails_the_windows_it_should_and_no_other(contract, windows, mutant, failing, count):
    failures = mutant_failures(SLUG, mutant, contract, windows)
    assert set(failures) == {failing}
    assert 1 <= failures[failing] <= count
