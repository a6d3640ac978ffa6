"""etcd windows: the fork's windows-only corpus, the upstream trace and bad input, counted from
the data (the contract reads our harness traces: tests/test_etcd_harness_corpus.py).

Measured counts: the fork's windows (node-first action_windows.jsonl + ai_spec_1 per-spec files,
the contract's corpus until cutter version 4) give HandleAppendEntries 154, ClientProposal 29,
ElectionTimeout 11, HandleVoteRequest 21 and no HandleHeartbeat; the upstream trace (etcd-io/raft
tla/example.ndjson) gives 927 windows: HandleAppendEntries 543, HandleHeartbeat 264,
ClientProposal 115, HandleVoteRequest 4, ElectionTimeout 1.
"""

import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import Traces, load_contract
from evaluation.windows import WindowFormatError, cut_with_summary
from evaluation.windows.etcd import cut_file

UPSTREAM = Path("traces") / "etcd" / "upstream-example.ndjson"
# The fork's windows-only scenarios (8-17 events missing between windows), still read by the cutter.
FORK = (
    "windows/etcd/action_windows.jsonl",
    "windows/etcd/ai_spec_1/windows_ClientProposal.ndjson",
    "windows/etcd/ai_spec_1/windows_ElectionTimeout.ndjson",
    "windows/etcd/ai_spec_1/windows_HandleVoteRequest.ndjson",
)


@pytest.fixture(scope="module")
def contract():
    return load_contract("etcd")


@pytest.fixture(scope="module")
def summary(contract):
    fork = replace(contract, traces=Traces("etcd", FORK, "data"))
    return cut_with_summary(fork, settings.SYSMOBENCH_DATA_DIR)


@pytest.fixture(scope="module")
def upstream():
    return cut_file(Path(settings.SYSMOBENCH_DATA_DIR) / UPSTREAM)


def _nulls(value) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_nulls(v) for v in value.values())
    if isinstance(value, list):
        return any(_nulls(v) for v in value)
    return False


def test_fork_windows_counts_per_target_action(summary):
    assert summary.actions == {
        "HandleAppendEntries": 154,
        "ClientProposal": 29,
        "ElectionTimeout": 11,
        "HandleVoteRequest": 21,
    }
    assert summary.unmapped == {}
    assert len({w["window_id"] for w in summary.windows}) == 215


def test_node_first_windows_become_var_first_with_string_ids(summary):
    first = next(w for w in summary.windows if w["window_id"] == "etcd/action_windows.jsonl:1")
    assert first["window_id"] == "etcd/action_windows.jsonl:1"
    assert (first["trace_id"], first["event"], first["actor"]) == (
        "check_quorum",
        "HandleAppendEntriesRequest",
        "2",
    )
    assert first["pre_state"]["votedFor"] == {"1": "1", "2": "1", "3": "1"}
    assert first["pre_state"]["logLen"] == {"1": 1, "2": 0, "3": 0}
    assert first["post_state"]["logLen"] == {"1": 1, "2": 1, "3": 0}
    assert first["input"] == {
        "type": "MsgApp",
        "from": "1",
        "to": "2",
        "term": 1,
        "prevLogIndex": 0,
        "prevLogTerm": 0,
        "entries": [{"term": 1}],
        "commitIndex": 0,
    }


def test_per_spec_windows_map_back_the_vote_sentinel_and_node_ids(summary):
    timeout = next(w for w in summary.windows if w["action"] == "ElectionTimeout")
    assert timeout["pre_state"]["votedFor"] == {"1": "None", "2": "None", "3": "None"}
    assert timeout["post_state"]["votedFor"] == {"1": "1", "2": "None", "3": "None"}
    # The per-spec ElectionTimeout files do not record last log terms: partial windows.
    assert "logLastTerm" not in timeout["pre_state"]


def test_vote_requests_get_the_candidate_last_log_term_back(summary):
    votes = [w for w in summary.windows if w["action"] == "HandleVoteRequest"]
    restored = [w for w in votes if w["input"]["logIndex"] > 0]
    assert len(restored) == 7
    for w in restored:
        sender = w["input"]["from"]
        assert w["input"]["logTerm"] == w["pre_state"]["logLastTerm"][sender] == 1


def test_no_window_holds_null(summary, upstream):
    assert not any(_nulls(w) for w in summary.windows + upstream)


def test_upstream_trace_counts_per_target_action(upstream):
    assert len(upstream) == 927
    assert Counter(w["action"] for w in upstream) == {
        "HandleAppendEntries": 543,
        "HandleHeartbeat": 264,
        "ClientProposal": 115,
        "HandleVoteRequest": 4,
        "ElectionTimeout": 1,
    }


def test_upstream_campaign_window(upstream):
    (timeout,) = [w for w in upstream if w["action"] == "ElectionTimeout"]
    assert timeout["event"] == "BecomeCandidate"
    node = timeout["actor"]
    assert node == "2"
    before = {v: timeout["pre_state"][v][node] for v in timeout["pre_state"]}
    after = {v: timeout["post_state"][v][node] for v in timeout["post_state"]}
    assert before == {
        "currentTerm": 1,
        "state": "StateFollower",
        "votedFor": "None",
        "commitIndex": 5,
        "logLen": 5,
        # The five bootstrap conf-change entries, which etcd writes at term 1.
        "logLastTerm": 1,
    }
    assert after == {**before, "currentTerm": 2, "state": "StateCandidate", "votedFor": "2"}


def test_upstream_granted_votes_show_in_the_post_state(upstream):
    # etcd replies to a MsgVote before it records the vote; the window's post-state is the
    # voter's state once the step is over, so the vote it granted is there.
    votes = [w for w in upstream if w["action"] == "HandleVoteRequest"]
    assert len(votes) == 4
    for w in votes:
        node, candidate = w["actor"], w["input"]["from"]
        assert w["pre_state"]["votedFor"][node] == "None"
        assert w["post_state"]["votedFor"][node] == candidate
        assert w["post_state"]["currentTerm"][node] == w["input"]["term"]


def test_rebuilt_last_terms_agree_with_what_etcd_sends(upstream):
    # A candidate's MsgVote carries its last log term; the replay did not rebuild it from there
    # (the cutter checks every MsgVote and MsgApp it sees against the rebuilt logs as it goes).
    votes = [w for w in upstream if w["action"] == "HandleVoteRequest"]
    for w in votes:
        sender = w["input"]["from"]
        assert w["pre_state"]["logLen"][sender] == w["input"]["logIndex"]
        assert w["pre_state"]["logLastTerm"][sender] == w["input"]["logTerm"]


def test_upstream_send_the_replay_disagrees_with_is_refused(tmp_path):
    lines = _two_nodes_and_a_leader()
    lines[-1] = _zap(
        "SendAppendEntriesRequest",
        "1",
        1,
        1,
        vote="1",
        role="StateLeader",
        msg={**_app(1, 0), "logTerm": 2},
    )
    path = _write(tmp_path, "t.ndjson", lines)
    with pytest.raises(WindowFormatError, match=rf"^{re.escape(str(path))}:5: etcd sends term 2"):
        cut_file(path)


def test_upstream_windows_move_only_the_actor(upstream):
    for w in upstream:
        for var, values in w["pre_state"].items():
            others = {k: v for k, v in values.items() if k != w["actor"]}
            moved = {k: v for k, v in w["post_state"][var].items() if k != w["actor"]}
            assert others == moved, w["window_id"]


def test_upstream_proposal_post_state_is_the_appended_log(upstream):
    proposals = [w for w in upstream if w["action"] == "ClientProposal"]
    for w in proposals:
        node = w["actor"]
        assert w["post_state"]["logLen"][node] == w["pre_state"]["logLen"][node] + 1


def _write(tmp_path, name, lines) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_malformed_json_line_is_named(tmp_path):
    path = _write(tmp_path, "action_windows.jsonl", [json.dumps(_node_first_line()), "{not json"])
    with pytest.raises(WindowFormatError, match=rf"^{re.escape(str(path))}:2: not JSON"):
        cut_file(path)


def test_node_first_line_without_pre_state_is_named(tmp_path):
    line = _node_first_line()
    del line["pre_state"]
    good = json.dumps(_node_first_line())
    path = _write(tmp_path, "action_windows.jsonl", [good, good, json.dumps(line)])
    with pytest.raises(WindowFormatError, match=rf"^{re.escape(str(path))}:3: missing pre_state"):
        cut_file(path)


def test_upstream_line_without_event_object_is_named(tmp_path):
    ok = {
        "tag": "trace",
        "event": {
            "name": "InitState",
            "nid": "1",
            "state": {"term": 0, "vote": "0", "commit": 0},
            "role": "StateFollower",
            "log": 0,
        },
    }
    bad = {"tag": "trace", "event": "InitState"}
    path = _write(tmp_path, "upstream.ndjson", [json.dumps(ok), json.dumps(ok), json.dumps(bad)])
    with pytest.raises(
        WindowFormatError, match=rf"^{re.escape(str(path))}:3: expected a zap trace line"
    ):
        cut_file(path)


def test_null_message_field_is_rejected(tmp_path):
    line = _node_first_line()
    line["input"]["commitIndex"] = None
    path = _write(tmp_path, "action_windows.jsonl", [json.dumps(line)])
    with pytest.raises(
        WindowFormatError, match=rf"^{re.escape(str(path))}:1: input.commitIndex is null"
    ):
        cut_file(path)


def test_per_spec_file_must_name_its_action(tmp_path):
    line = {"id": 1, "trace_id": "t", "node": 1, "pre": {}, "post": {}}
    path = _write(tmp_path, "whatever.ndjson", [json.dumps(line)])
    with pytest.raises(WindowFormatError, match=rf"^{re.escape(str(path))}:1: per-spec file name"):
        cut_file(path)


def _node_first_line() -> dict:
    node = {
        "currentTerm": 1,
        "state": "StateFollower",
        "votedFor": 0,
        "commitIndex": 0,
        "logLen": 0,
        "logLastTerm": 0,
    }
    return {
        "trace_id": "t",
        "event": "HandleAppendEntriesRequest",
        "node": "2",
        "pre_state": {"1": dict(node), "2": dict(node)},
        "post_state": {"1": dict(node), "2": {**node, "logLen": 1, "logLastTerm": 1}},
        "input": {
            "type": "MsgApp",
            "from": 1,
            "to": 2,
            "term": 1,
            "prevLogIndex": 0,
            "prevLogTerm": 0,
            "entries": [{"term": 1, "data": "x"}],
            "commitIndex": 0,
        },
        "window_id": 0,
    }


def _zap(name, nid, term, log, commit=0, vote="0", role="StateFollower", msg=None) -> str:
    event = {
        "name": name,
        "nid": nid,
        "state": {"term": term, "vote": vote, "commit": commit},
        "role": role,
        "log": log,
    }
    if msg is not None:
        event["msg"] = msg
    return json.dumps({"tag": "trace", "event": event})


def _app(index, entries, term=1) -> dict:
    return {
        "type": "MsgApp",
        "from": "1",
        "to": "2",
        "term": term,
        "index": index,
        "logTerm": 0 if index == 0 else 1,
        "entries": entries,
        "commit": 0,
    }


def _two_nodes_and_a_leader() -> list[str]:
    return [
        _zap("InitState", "1", 0, 0),
        _zap("InitState", "2", 0, 0),
        _zap("BecomeLeader", "1", 1, 0, vote="1", role="StateLeader"),
        _zap("Replicate", "1", 1, 0, vote="1", role="StateLeader"),
        _zap("SendAppendEntriesRequest", "1", 1, 1, vote="1", role="StateLeader", msg=_app(0, 1)),
    ]


def test_upstream_append_takes_the_senders_entry_terms(tmp_path):
    lines = [
        *_two_nodes_and_a_leader(),
        _zap("ReceiveAppendEntriesRequest", "2", 0, 0, msg=_app(0, 1)),
        _zap("BecomeFollower", "2", 1, 0),
        _zap("SendAppendEntriesResponse", "2", 1, 1),
    ]
    (window,) = [w for w in cut_file(_write(tmp_path, "t.ndjson", lines)) if w["actor"] == "2"]
    assert window["input"]["entries"] == [{"term": 1}]
    assert window["post_state"]["logLen"]["2"] == 1
    assert window["post_state"]["logLastTerm"]["2"] == 1


def test_upstream_append_never_sent_is_refused(tmp_path):
    lines = [
        *_two_nodes_and_a_leader(),
        _zap("ReceiveAppendEntriesRequest", "2", 0, 0, msg=_app(0, 2)),
    ]
    path = _write(tmp_path, "t.ndjson", lines)
    with pytest.raises(WindowFormatError, match=rf"^{re.escape(str(path))}:6: MsgApp received"):
        cut_file(path)


def test_upstream_log_the_replay_cannot_explain_is_refused(tmp_path):
    # The follower reports two entries after a MsgApp that carried one.
    lines = [
        *_two_nodes_and_a_leader(),
        _zap("ReceiveAppendEntriesRequest", "2", 0, 0, msg=_app(0, 1)),
        _zap("SendAppendEntriesResponse", "2", 1, 2),
    ]
    path = _write(tmp_path, "t.ndjson", lines)
    with pytest.raises(WindowFormatError, match=rf"^{re.escape(str(path))}:7: the MsgApp replay"):
        cut_file(path)


def test_a_scenario_from_several_files_is_one_trace_in_the_order_of_the_run(summary):
    # The per-spec files' windows of a scenario are merged into its node-first windows
    # (windows/interleave.py): each event starts where the one before it left the cluster, up
    # to what the logs do not record (a term update, a message received unlogged).
    trace = [w for w in summary.windows if w["trace_id"] == "leader_change"]
    actions = [w["action"] for w in trace]
    assert actions[:4] == [
        "ElectionTimeout",
        "HandleVoteRequest",
        "HandleVoteRequest",
        "HandleAppendEntries",
    ]
    files = [w["window_id"].split(":")[0] for w in trace]
    for name in set(files):
        lines = [
            int(w["window_id"].split(":")[1]) for w in trace if w["window_id"].startswith(name)
        ]
        assert lines == sorted(lines)  # each file's own order is kept
    terms = [max(w["pre_state"]["currentTerm"].values()) for w in trace]
    assert terms == sorted(terms)


def test_upstream_windows_come_in_the_order_of_the_events_that_opened_them(tmp_path):
    # Node 2's append shows its result only at node 2's next event (line 9); the leader's
    # proposal (line 7) comes after the append in the log, so after it in the trace, and it
    # shows node 2 as the append left it: P3 follows the windows in this order.
    lines = [
        *_two_nodes_and_a_leader(),
        _zap("ReceiveAppendEntriesRequest", "2", 0, 0, msg=_app(0, 1)),
        _zap("Replicate", "1", 1, 1, vote="1", role="StateLeader"),
        _zap("Ready", "1", 1, 2, vote="1", role="StateLeader"),
        _zap("SendAppendEntriesResponse", "2", 1, 1),
    ]
    windows = cut_file(_write(tmp_path, "t.ndjson", lines))
    assert [(w["action"], w["window_id"].rsplit(":")[-1]) for w in windows] == [
        ("ClientProposal", "4"),
        ("HandleAppendEntries", "6"),
        ("ClientProposal", "7"),
    ]
    append, proposal = windows[1], windows[2]
    for var in ("currentTerm", "logLen", "logLastTerm"):
        assert proposal["pre_state"][var]["2"] == append["post_state"][var]["2"], var
        assert proposal["post_state"][var]["2"] == append["post_state"][var]["2"], var
    assert proposal["post_state"]["logLen"]["1"] == 2
