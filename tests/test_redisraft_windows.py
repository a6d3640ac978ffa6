"""RedisRaft windows from the regenerated run, counted from the data, and bad input named.

Measured counts (traces/redisraft/run1/merged_trace.ndjson, 323 events): ElectionTimeout 4,
BecomeCandidate 4, BecomeLeader 4 (from 12 BecomeLeader log lines), RecvRequestVote 16 (8 pre-vote,
8 vote), RecvAppendEntries 108; no LogAppend (the run has no client traffic).
"""

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract
from evaluation.windows import WindowFormatError, cut_with_summary, stored
from evaluation.windows.redisraft import cut

RUN = Path("traces") / "redisraft" / "run1"


@pytest.fixture(scope="module")
def contract():
    return load_contract("redisraft")


@pytest.fixture(scope="module")
def summary(contract):
    return cut_with_summary(contract, settings.SYSMOBENCH_DATA_DIR)


def test_counts_per_target_action(summary):
    assert summary.actions == {
        "ElectionTimeout": 4,
        "BecomeCandidate": 4,
        "BecomeLeader": 4,
        "RecvRequestVote": 16,
        "RecvAppendEntries": 108,
    }
    assert summary.events == {
        "BecomePreCandidate": 4,
        "BecomeCandidate": 4,
        "BecomeLeader": 4,
        "PreVoteResponse": 8,
        "VoteResponse": 8,
        "AppendEntriesResponse": 108,
    }
    votes = Counter(
        w["input"]["prevote"] for w in summary.windows if w["action"] == "RecvRequestVote"
    )
    assert votes == {True: 8, False: 8}


def test_repeated_become_leader_lines_are_one_step(summary):
    raw = stored.read_text(Path(settings.SYSMOBENCH_DATA_DIR) / RUN / "merged_trace.ndjson")
    assert raw.count('"name":"BecomeLeader"') == 12
    leaders = [w for w in summary.windows if w["action"] == "BecomeLeader"]
    assert [(w["actor"], w["post_state"]["currentTerm"][w["actor"]]) for w in leaders] == [
        ("1", 1),
        ("3", 2),
        ("3", 3),
        ("2", 4),
    ]
    for w in leaders:
        node = w["actor"]
        assert w["pre_state"]["state"][node] == "candidate"
        assert w["post_state"]["state"][node] == "leader"
        # The no-op entry appended on election shows in the leader's log.
        assert w["post_state"]["logLen"][node] == w["pre_state"]["logLen"][node] + 1


def test_first_real_vote_window(summary):
    vote = next(w for w in summary.windows if w["event"] == "VoteResponse")
    assert vote["actor"] == "2"
    assert vote["input"] == {
        "type": "RequestVote",
        "from": "1",
        "to": "2",
        "term": 1,
        "lastLogIndex": 0,
        "lastLogTerm": 0,
        "prevote": False,
    }
    assert vote["pre_state"]["currentTerm"]["2"] == 0
    assert vote["post_state"]["currentTerm"]["2"] == 1
    assert vote["pre_state"]["votedFor"]["2"] == "None"
    assert vote["post_state"]["votedFor"]["2"] == "1"


def test_windows_move_only_the_actor(summary):
    for w in summary.windows:
        for var, values in w["pre_state"].items():
            others = {k: v for k, v in values.items() if k != w["actor"]}
            moved = {k: v for k, v in w["post_state"][var].items() if k != w["actor"]}
            assert others == moved, w["window_id"]


def test_per_node_files_give_the_same_windows_as_the_merged_file(contract):
    base = Path(settings.SYSMOBENCH_DATA_DIR) / RUN
    merged = cut(contract, [base / "merged_trace.ndjson"])
    per_node = cut(contract, stored.glob_logical(base, "node_*_trace.ndjson"))

    def strip(ws):
        return [
            (w["action"], w["actor"], w["pre_state"], w["post_state"], w.get("input")) for w in ws
        ]

    assert len(per_node) == 136
    assert strip(per_node) == strip(merged)


def _write(tmp_path, lines) -> Path:
    path = tmp_path / "merged_trace.ndjson"
    path.write_text("\n".join(json.dumps(x) if isinstance(x, dict) else x for x in lines) + "\n")
    return path


def _init(nid: int) -> dict:
    return {
        "timestamp": 1.0,
        "name": "InitState",
        "nid": nid,
        "role": "follower",
        "state": {"term": 0, "vote": -1, "commit": 0},
    }


def _raises(contract, path, line: int, what: str):
    return pytest.raises(WindowFormatError, match=rf"^{re.escape(str(path))}:{line}: {what}")


def test_malformed_json_line_is_named(tmp_path, contract):
    path = _write(tmp_path, [_init(1), "{oops"])
    with _raises(contract, path, 2, "not JSON"):
        cut(contract, [path])


def test_event_without_node_id_is_named(tmp_path, contract):
    path = _write(tmp_path, [_init(1), {"timestamp": 2.0, "name": "BecomePreCandidate"}])
    with _raises(contract, path, 2, "missing nid"):
        cut(contract, [path])


def test_vote_response_without_a_request_is_named(tmp_path, contract):
    answer = {"timestamp": 2.0, "name": "VoteResponse", "nid": 2, "vote_granted": 1, "term": 1}
    path = _write(tmp_path, [_init(1), _init(2), answer])
    with _raises(contract, path, 3, "VoteResponse with no matching request"):
        cut(contract, [path])


def test_event_before_init_state_is_named(tmp_path, contract):
    step = {"timestamp": 2.0, "name": "BecomePreCandidate", "nid": 3, "role": "precandidate"}
    path = _write(tmp_path, [_init(1), step])
    with _raises(contract, path, 2, "event for node 3 before its InitState"):
        cut(contract, [path])


def test_window_ids_name_the_line_that_closed_the_step(summary):
    first = summary.windows[0]
    # Line 6 of the merged file is node 1's BecomePreCandidate, after its pre-vote sends.
    assert (first["window_id"], first["trace_id"], first["action"]) == (
        "run1/merged_trace.ndjson:6",
        "run1",
        "ElectionTimeout",
    )
    assert len({w["window_id"] for w in summary.windows}) == 136
