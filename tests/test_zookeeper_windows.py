"""ZooKeeper windows from our committed ensemble corpus, counted from the data, and bad input named.

The corpus (harnesses/zookeeper/traces, made by `bin/make-traces zookeeper`, seed 13) has nine
runs, three per scenario; the counts per action are in the closing note and the manifest.
"""

import json

import pytest

from evaluation.inputs.contracts import load_contract
from evaluation.windows import PROJECT_ROOT, WindowFormatError, cut_with_summary
from evaluation.windows.zookeeper import cut, zxid

TRACES = PROJECT_ROOT / "harnesses" / "zookeeper" / "traces"


@pytest.fixture(scope="module")
def contract():
    return load_contract("zookeeper")


@pytest.fixture(scope="module")
def summary(contract, tmp_path_factory):
    # The data folder plays no part: the corpus is the project's own.
    return cut_with_summary(contract, tmp_path_factory.mktemp("no-benchmark-data"))


def _events() -> list[dict]:
    return [
        json.loads(line)
        for path in sorted(TRACES.glob("*.ndjson"))
        for line in path.read_text().splitlines()
    ]


def test_every_event_is_a_window_and_only_target_actions_are_kept(summary):
    events = _events()
    assert sum(summary.events.values()) == len(events)
    assert set(summary.actions) == {"Notification", "HandleNotification", "BecomeLeader"}
    for action in summary.actions:
        assert summary.actions[action] == sum(1 for e in events if e["event"] == action)
    assert set(summary.unmapped) <= {
        "StartPeer",
        "Synced",
        "BecomeLooking",
        "BecomeFollower",
        "DiscardNotification",
    }


def test_the_manifest_names_the_command_seed_and_every_file(summary):
    manifest = json.loads((TRACES / "manifest.json").read_text())
    assert manifest["seed"] == "13"
    assert manifest["command"].startswith("python -m harnesses.zookeeper.make_traces")
    assert manifest["zookeeper"].startswith("3.8.0")
    assert sorted(manifest["files"]) == sorted(p.name for p in summary.files)


def test_only_the_actor_moves(summary):
    for w in summary.windows:
        for var, values in w["pre_state"].items():
            for server, value in values.items():
                if server != w["actor"]:
                    assert w["post_state"][var][server] == value


def test_one_leader_per_cold_start_and_a_new_one_after_the_kill(summary):
    leaders: dict[str, list[str]] = {}
    for w in summary.windows:
        if w["action"] == "BecomeLeader":
            leaders.setdefault(w["trace_id"], []).append(w["actor"])
    for trace, names in leaders.items():
        if trace.startswith("cold-start"):
            assert len(names) == 1
        else:
            assert len(names) >= 2, trace


def test_the_newer_zxid_wins_in_every_newer_zxid_run(summary):
    for trace in {w["trace_id"] for w in summary.windows if w["trace_id"].startswith("newer")}:
        leaders = [
            w for w in summary.windows if w["trace_id"] == trace and w["action"] == "BecomeLeader"
        ]
        winner = leaders[-1]
        pre = winner["pre_state"]
        assert pre["lastZxid"][winner["actor"]] == max(pre["lastZxid"].values())


def test_zxid_encoding_keeps_order_and_refuses_what_does_not_fit():
    assert zxid(0, "w") == 0
    assert zxid((1 << 32) | 2, "w") == 1002
    assert zxid((2 << 32) | 999, "w") < zxid(3 << 32, "w")
    with pytest.raises(WindowFormatError, match="w: zxid counter 1000 does not fit"):
        zxid((1 << 32) | 1000, "w")


def _one(tmp_path, event: dict):
    path = tmp_path / "bad.ndjson"
    path.write_text(json.dumps(event) + "\n")
    return path


GOOD_STATE = {
    "state": "LOOKING",
    "round": 1,
    "leader": 1,
    "voteZxid": 0,
    "voteEpoch": 0,
    "lastZxid": 0,
    "peerEpoch": 0,
    "votes": [1],
    "recvVotes": {"1": 1},
}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"node": "s7"}, "'s7' is not one of the pinned servers"),
        ({"state": {**GOOD_STATE, "state": "OBSERVING"}}, "unknown peer state 'OBSERVING'"),
        ({"state": {**GOOD_STATE, "round": -1}}, "round is missing or not a non-negative"),
        ({"state": {"state": "LOOKING"}}, "state must have exactly"),
        ({"data": {"from": 1, "to": 1}}, "notification state None"),
    ],
)
def test_bad_events_are_named_with_file_and_line(contract, tmp_path, change, message):
    event = {
        "event": "HandleNotification",
        "step": 0,
        "node": "s1",
        "subnode": 0,
        "data": {
            "from": 1,
            "to": 1,
            "state": "LOOKING",
            "leader": 1,
            "zxid": 0,
            "electionEpoch": 1,
            "peerEpoch": 0,
        },
        "state": GOOD_STATE,
        **change,
    }
    path = _one(tmp_path, event)
    with pytest.raises(WindowFormatError, match=f"bad.ndjson:1: .*{message}"):
        list(cut(contract, [path]))
