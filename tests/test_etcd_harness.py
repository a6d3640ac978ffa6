"""Our etcd harness end to end: the driver is built over go.etcd.io/raft/v3 (from the Go module
proxy, -tags with_tla) and runs each scenario once under a small seed; the traces hold every
message etcd sent and received, a replay of them reaches the logs etcd stored, each scenario
shows what it is named after, and the reference spec passes every window cut from them."""

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from evaluation.inputs.contracts import Traces, load_contract
from evaluation.windows import cut_with_summary
from evaluation.windows.etcd import rebuilt_logs
from tests.reference_support import conformance, read_reference

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = (
    "election",
    "leader-crash",
    "lagging-follower",
    "partition-heals",
    "conflicting-entries",
    "conf-change",
)
pytestmark = pytest.mark.harness


def _make(out: Path, seed: int) -> str:
    run = subprocess.run(
        ["bin/make-traces", "etcd", "--seed", str(seed), "--runs", "1", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        start_new_session=True,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return run.stdout


@pytest.fixture(scope="module")
def short_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("etcd-traces")
    stdout = _make(out, 7)
    return out, stdout, json.loads((out / "manifest.json").read_text())


def _events(path: Path) -> list[dict]:
    return [json.loads(line)["event"] for line in path.read_text().splitlines()]


def test_every_scenario_writes_one_trace(short_run):
    out, stdout, manifest = short_run
    assert "etcd: 6 traces" in stdout
    assert sorted(p.name for p in out.glob("*.ndjson")) == sorted(
        f"{s}-1.ndjson" for s in SCENARIOS
    )
    assert [t["file"] for t in manifest["traces"]] == [f"{s}-1.ndjson" for s in SCENARIOS]


def test_the_same_seed_gives_the_same_bytes(short_run, tmp_path):
    out, _, _ = short_run
    _make(tmp_path, 7)
    for path in out.glob("*.ndjson"):
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name


def test_provenance_names_the_module_as_go_sum_pins_it(short_run):
    out, _, manifest = short_run
    go_sum = (ROOT / "harnesses/etcd/driver/go.sum").read_text()
    assert (manifest["module"], manifest["version"]) == ("go.etcd.io/raft/v3", "v3.6.0")
    assert f"go.etcd.io/raft/v3 v3.6.0 {manifest['sum']}" in go_sum
    assert manifest["build_tags"] == "with_tla"
    provenance = (out / "PROVENANCE.md").read_text()
    assert "`bin/make-traces etcd --seed 7 --runs 1`" in provenance
    assert manifest["sum"] in provenance


def test_every_message_received_was_sent_before(short_run):
    out, _, _ = short_run
    for path in out.glob("*.ndjson"):
        sent: list[dict] = []
        names = set()
        for event in _events(path):
            names.add(event["name"])
            if event["name"].startswith("Send"):
                sent.append(event["msg"])
            elif event["name"].startswith("Receive"):
                assert event["msg"] in sent, f"{path.name}: {event}"
                sent.remove(event["msg"])
        assert {"SendAppendEntriesRequest", "ReceiveAppendEntriesResponse", "Ready"} <= names


def test_the_replay_reaches_the_logs_etcd_stored(short_run):
    out, _, manifest = short_run
    for trace in manifest["traces"]:
        assert rebuilt_logs(out / trace["file"]) == trace["final_logs"], trace["file"]


def test_terms_and_logs_stay_within_the_contract_bounds(short_run):
    out, _, _ = short_run
    for path in out.glob("*.ndjson"):
        events = _events(path)
        assert max(e["state"]["term"] for e in events) <= 2
        assert max(e["log"] for e in events) <= 12
        assert {e["nid"] for e in events} == {"1", "2", "3"}


def _restarted(events: list[dict]) -> tuple[str, dict]:
    """The node that started twice, and its second InitState."""
    starts = [e for e in events if e["name"] == "InitState"]
    (again,) = [e for e in starts[3:]]
    return again["nid"], again


def test_each_scenario_shows_its_point(short_run):
    out, _, manifest = short_run
    final = {t["file"].rsplit("-", 1)[0]: t["final_logs"] for t in manifest["traces"]}
    events = {s: _events(out / f"{s}-1.ndjson") for s in SCENARIOS}
    leaders = {
        s: [(e["nid"], e["state"]["term"]) for e in ev if e["name"] == "BecomeLeader"]
        for s, ev in events.items()
    }
    assert leaders["election"][-1][1] in (1, 2)
    for name in ("leader-crash", "partition-heals", "conflicting-entries"):
        (first, t1), (second, t2) = leaders[name]
        assert (t1, t2) == (1, 2) and first != second, name
    node, again = _restarted(events["leader-crash"])
    # etcd traces InitState before it loads the persisted HardState: term 0, but the log kept.
    assert again["log"] > 0 and leaders["leader-crash"][0][0] == node
    # The old leader restarts with entries of term 1 past what term 2's leader kept; they end
    # up overwritten by term 2's.
    node, again = _restarted(events["conflicting-entries"])
    stale = again["log"]
    assert rebuilt_logs(out / "conflicting-entries-1.ndjson")[node][stale - 1] == 2
    assert final["conflicting-entries"][node][stale - 1] == 2
    lag = manifest["traces"][2]
    assert lag["file"] == "lagging-follower-1.ndjson" and lag["net"]["Dropped"] > 0
    confs = [
        e["prop"]["cc"].get("newconf", [])
        for e in events["conf-change"]
        if e["name"] == "ApplyConfChange"
    ]
    assert ["1", "2"] in confs and ["1", "2", "3"] in confs
    assert any(len(c) == 2 and "3" in c for c in confs)


@pytest.mark.tla
def test_the_reference_passes_every_window_of_the_run(short_run):
    out, _, _ = short_run
    contract = load_contract("etcd")
    contract = replace(contract, traces=Traces("etcd", ("*.ndjson",), "data"))
    cut = cut_with_summary(contract, out)
    assert set(cut.actions) == {
        "ElectionTimeout",
        "HandleVoteRequest",
        "ClientProposal",
        "HandleAppendEntries",
        "HandleHeartbeat",
    }
    assert not cut.unmapped
    outcome = conformance(read_reference("etcd", "etcdraft.tla"), contract, cut.windows)
    assert {w.verdict for w in outcome.windows} == {"pass"}
    assert len(outcome.windows) == len(cut.windows)


@pytest.fixture(scope="module")
def stale_votes(short_run, tmp_path_factory):
    """One harness run for both stale-vote tests (the binary `short_run` built). Seed 6's third
    and fourth election runs deliver a delayed MsgVote of term 1 to a node already in term 2;
    etcd ignores it (raft.Step)."""
    tmp_path = tmp_path_factory.mktemp("stale-votes")
    run = subprocess.run(
        [str(ROOT / "var/harness-bin/etcd-traces"), "-seed", "6", "-runs", "4"]
        + ["-scenario", "election", "-out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        start_new_session=True,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    contract = load_contract("etcd")
    cut = cut_with_summary(
        replace(contract, traces=Traces("etcd", ("*.ndjson",), "data")), tmp_path
    )
    stale = [
        w
        for w in cut.windows
        if w["action"] == "HandleVoteRequest"
        and w["input"]["term"] < w["pre_state"]["currentTerm"][w["actor"]]
    ]
    return contract, cut, stale


def test_a_vote_request_of_an_older_term_is_recorded_and_changes_nothing(stale_votes):
    _, _, stale = stale_votes
    assert len(stale) == 2
    assert all(w["post_state"] == w["pre_state"] for w in stale)


# The reference's BecomeLeader counts votes from the voters' current votedFor, and here node 2
# has moved to term 2 before node 1 reads 2's delayed term-1 vote, so the reference cannot follow
# the new leader's first events (a votes-granted variable would fix that). Since scorer 3.2.0 P3
# picks a trace up again at a later event the reference's own steps reach
# (docs/decisions/0007-p3-picks-the-trace-up-again.md); the stale requests are among them.
@pytest.mark.tla
def test_the_reference_takes_a_stale_vote_request_within_its_trace(stale_votes):
    contract, cut, stale = stale_votes
    # P3 follows each trace from Init: the stale requests are checked within their traces.
    traces = {w["trace_id"] for w in stale}
    followed = [w for w in cut.windows if w["trace_id"] in traces]
    outcome = conformance(read_reference("etcd", "etcdraft.tla"), contract, followed)
    by_id = {w.window_id: w.verdict for w in outcome.windows}
    assert {by_id[w["window_id"]] for w in stale} == {"pass"}
