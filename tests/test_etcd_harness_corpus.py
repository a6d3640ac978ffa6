"""The etcd contract's corpus: the committed harness traces (corpus/traces/etcd/harness: 24 runs
of etcd's own Raft in six scenarios, seed 5), complete from the cluster's start, cut in the
order of the log. P3 follows each trace from Init; the reference passes every window
(tests/test_etcd_reference.py) and each deliberately wrong variant does not pass the windows its
defect touches and fails no other (a window it cannot reach after leaving the trace is
undecided).

Measured on this corpus: 1060 windows, HandleAppendEntries 484, HandleHeartbeat 337,
ClientProposal 139, HandleVoteRequest 61 (9 of them refused), ElectionTimeout 39.
The mutants are checked on the first run of each scenario and on every election run (the
refused votes), to keep the test short."""

from dataclasses import replace
from pathlib import Path

import pytest

from evaluation.inputs.contracts import Traces, load_contract
from evaluation.windows import cut_with_summary
from tests.reference_support import assert_fails_exactly

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.tla

ALL_PASS = {
    "ElectionTimeout": (39, 39),
    "HandleVoteRequest": (61, 61),
    "ClientProposal": (139, 139),
    "HandleAppendEntries": (484, 484),
    "HandleHeartbeat": (337, 337),
}


def _cut(contract, *patterns: str):
    traces = Traces("etcd", tuple(f"traces/etcd/harness/{p}" for p in patterns), "data")
    return cut_with_summary(replace(contract, traces=traces), ROOT / "corpus")


@pytest.fixture(scope="module")
def contract():
    return load_contract("etcd")


@pytest.fixture(scope="module")
def corpus(contract):
    return _cut(contract, "*.ndjson")


@pytest.fixture(scope="module")
def first_runs(contract):
    """The first run of each scenario, and every election run (where the refused votes are)."""
    return _cut(contract, "*-1.ndjson", "election-[234].ndjson").windows


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


def test_the_contract_reads_these_traces(contract):
    assert contract.traces.paths == ("traces/etcd/harness/*.ndjson",)


def test_each_trace_comes_in_the_order_of_its_log(corpus):
    # P3 follows a trace's windows in the order the cutter yields them.
    lines: dict[str, list[int]] = {}
    for w in corpus.windows:
        lines.setdefault(w["trace_id"], []).append(int(w["window_id"].rsplit(":", 1)[1]))
    assert len(lines) == 24
    assert all(numbers == sorted(numbers) for numbers in lines.values())


def _vote_terms(w) -> tuple[bool, bool]:
    """(may the voter vote for this candidate, is the candidate's log up to date), by the
    window's own pre-state and message."""
    node, msg, pre = w["actor"], w["input"], w["pre_state"]
    vote = "None" if msg["term"] > pre["currentTerm"][node] else pre["votedFor"][node]
    last_term, length = pre["logLastTerm"][node], pre["logLen"][node]
    up_to_date = msg["logTerm"] > last_term or (
        msg["logTerm"] == last_term and msg["logIndex"] >= length
    )
    return vote in ("None", msg["from"]), up_to_date


def _vote_it_may_cast(w) -> bool:
    # The flipped guard swaps the answer wherever the voter is free to vote.
    return w["action"] == "HandleVoteRequest" and _vote_terms(w)[0]


def _vote_already_given(w) -> bool:
    # The dropped guard grants an up-to-date candidate whatever the voter did before.
    return w["action"] == "HandleVoteRequest" and _vote_terms(w) == (False, True)


def _campaign_changes_the_vote(w) -> bool:
    # A node campaigning again after voting for itself keeps its vote: the wrong post-state
    # (no self-vote) is then the right one, and that window passes.
    return w["action"] == "ElectionTimeout" and w["pre_state"]["votedFor"][w["actor"]] != w["actor"]


def _proposal(w) -> bool:
    return w["action"] == "ClientProposal"


@pytest.mark.parametrize(
    "mutant, intended",
    [
        ("flipped_guard", _vote_it_may_cast),
        ("wrong_post_state", _campaign_changes_the_vote),
        ("merged_steps", _proposal),
        ("dropped_guard", _vote_already_given),
    ],
)
def test_mutant_fails_the_windows_of_its_defect(contract, first_runs, mutant, intended):
    assert_fails_exactly("etcd", mutant, contract, first_runs, intended)
