"""The redisraft reference spec passes every official window and the contract's safety invariants;
each deliberately wrong variant is caught, by conformance (P3) or by an invariant."""

from pathlib import Path

import pytest
from django.conf import settings

from evaluation.contracts import load_contract
from evaluation.phases.conformance import check_conformance
from evaluation.phases.invariants import check_invariants
from evaluation.tla.sandbox import Limits, run_sany, run_tlc
from evaluation.windows import cut_windows

pytestmark = pytest.mark.tla

REFERENCE = Path(__file__).resolve().parent.parent / "tasks_data" / "redisraft" / "reference"
MODULE = "redisraft"
ALL_PASS = {
    "ElectionTimeout": (4, 4),
    "BecomeCandidate": (4, 4),
    "BecomeLeader": (4, 4),
    "RecvRequestVote": (16, 16),
    "RecvAppendEntries": (108, 108),
}


@pytest.fixture(scope="module")
def contract():
    return load_contract("redisraft")


@pytest.fixture(scope="module")
def windows(contract):
    return cut_windows(contract, settings.SYSMOBENCH_DATA_DIR)


def _read(name: str) -> str:
    return (REFERENCE / name).read_text()


def _rates(outcome) -> dict[str, tuple[int, int]]:
    return {a.action: (a.passed, a.total) for a in outcome.actions if a.total}


@pytest.mark.parametrize(
    "name",
    [
        "redisraft.tla",
        "mutants/flipped_guard.tla",
        "mutants/wrong_post_state.tla",
        "mutants/merged_steps.tla",
        "mutants/dropped_guard.tla",
    ],
)
def test_sany_accepts_the_spec(name):
    run = run_sany({MODULE: _read(name)}, MODULE, Limits(wall_seconds=60))
    assert run.status == "ok", run.output[-2000:]


def test_reference_scores_p3_one(contract, windows):
    outcome = check_conformance(_read("redisraft.tla"), contract, windows)
    assert outcome.status == "ran", outcome.details
    assert outcome.score == 1.0
    assert _rates(outcome) == ALL_PASS


def test_contract_safety_invariants_hold_on_the_reference(contract):
    outcome = check_invariants(_read("redisraft.tla"), contract)
    verdicts = {i.name: i.verdict for i in outcome.invariants if i.kind == "safety"}
    assert verdicts == {
        name: "holds"
        for name in (
            "MoreThanOneLeaderInv",
            "RaftStateTransitionInv",
            "PreCandidateTermStabilityInv",
            "VoteConsistencyInv",
            "TermValidityInv",
            "CommitIndexConsistencyInv",
        )
    }


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
    outcome = check_conformance(_read(f"mutants/{mutant}.tla"), contract, windows)
    assert outcome.status == "ran", outcome.details
    assert outcome.score < 1
    passed, total = ALL_PASS[failing]
    assert _rates(outcome) == {**ALL_PASS, failing: (passed - count, total)}


def test_dropped_guard_passes_every_window_but_elects_two_leaders(contract, windows):
    spec = _read("mutants/dropped_guard.tla")
    assert check_conformance(spec, contract, windows).score == 1.0
    (leaders,) = [i for i in contract.invariants if i.name == "MoreThanOneLeaderInv"]
    head, _, _ = spec.rstrip().rpartition("\n====")
    constants = "".join(f"  {k} = {v}\n" for k, v in contract.constants.items())
    run = run_tlc(
        {MODULE: f"{head}\n\n{leaders.definition}\n====\n"},
        MODULE,
        f"CONSTANTS\n{constants}SPECIFICATION Spec\nINVARIANT MoreThanOneLeaderInv\n",
        ["-deadlock"],
        Limits(wall_seconds=120, cpu_seconds=240),
    )
    assert run.status != "ok"
    assert "Invariant MoreThanOneLeaderInv is violated" in run.output
