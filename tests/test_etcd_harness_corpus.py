"""The etcd reference spec passes every window cut from the committed harness corpus
(harnesses/etcd/traces: 24 runs of etcd's own Raft in six scenarios, seed 1), and each
deliberately wrong variant fails exactly the windows its defect touches.

Measured on this corpus: 1153 windows, HandleAppendEntries 516, HandleHeartbeat 399,
ClientProposal 149, HandleVoteRequest 52 (every one a granted vote), ElectionTimeout 37.
The mutants are checked on the first run of each scenario, to keep the test short."""

from dataclasses import replace
from pathlib import Path

import pytest

from evaluation.inputs.contracts import Traces, load_contract
from evaluation.windows import cut_with_summary
from tests.reference_support import assert_fails_exactly, conformance, rates, read_reference

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.tla

ALL_PASS = {
    "ElectionTimeout": (37, 37),
    "HandleVoteRequest": (52, 52),
    "ClientProposal": (149, 149),
    "HandleAppendEntries": (516, 516),
    "HandleHeartbeat": (399, 399),
}


def _cut(contract, pattern: str):
    traces = Traces("etcd", (f"harnesses/etcd/traces/{pattern}",), "project")
    return cut_with_summary(replace(contract, traces=traces), ROOT)


@pytest.fixture(scope="module")
def contract():
    return load_contract("etcd")


@pytest.fixture(scope="module")
def corpus(contract):
    return _cut(contract, "*.ndjson")


@pytest.fixture(scope="module")
def first_runs(contract):
    return _cut(contract, "*-1.ndjson").windows


def test_corpus_counts(corpus):
    assert len(corpus.files) == 24
    assert {n: t for n, (_, t) in ALL_PASS.items()} == dict(corpus.actions)
    assert not corpus.unmapped


def test_windows_stay_within_the_contract_bounds(corpus):
    for w in corpus.windows:
        for side in (w["pre_state"], w["post_state"]):
            assert set(side["currentTerm"]) <= {"1", "2", "3"}  # the contract's Server
            assert max(side["currentTerm"].values()) <= 2
            assert max(side["logLastTerm"].values()) <= 2
            assert max(side["logLen"].values()) <= 12


def test_reference_passes_every_window(contract, corpus):
    outcome = conformance(read_reference("etcd", "etcdraft.tla"), contract, corpus.windows)
    assert outcome.score == 1.0
    assert rates(outcome) == ALL_PASS


def _granted_vote(w) -> bool:
    return (
        w["action"] == "HandleVoteRequest"
        and w["post_state"]["votedFor"][w["actor"]] == w["input"]["from"]
    )


def _campaign_changes_the_vote(w) -> bool:
    # A node campaigning again after voting for itself keeps its vote: the wrong post-state
    # (no self-vote) is then the right one, and that window passes.
    return w["action"] == "ElectionTimeout" and w["pre_state"]["votedFor"][w["actor"]] != w["actor"]


def _proposal(w) -> bool:
    return w["action"] == "ClientProposal"


@pytest.mark.parametrize(
    "mutant, intended",
    [
        ("flipped_guard", _granted_vote),
        ("wrong_post_state", _campaign_changes_the_vote),
        ("merged_steps", _proposal),
    ],
)
def test_mutant_fails_the_windows_of_its_defect(contract, first_runs, mutant, intended):
    assert_fails_exactly("etcd", mutant, contract, first_runs, intended)
