"""PGo traces (dqueue, locksvc, raftkvs) cut into canonical windows.

The expected counts were measured on corpus/traces/pgo (see PROVENANCE.md) with
this cutter: every committed step whose MPCal label maps to a target action is one window.
"""

import json
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract
from evaluation.windows import cut_with_summary, pgo, trace_files
from evaluation.windows.errors import WindowFormatError

EXPECTED = {
    "dqueue": {
        "actions": {"Request": 7, "Produce": 6},
        "steps": 46,
        "aborted": 4,
        "unmapped": {"AConsumer.c": 7, "AConsumer.c2": 6, "AProducer.p": 9, "AProducer.p1": 7},
    },
    "locksvc": {
        "actions": {
            "ClientLockRequest": 85,
            "ServerGrantLock": 80,
            "ClientCriticalSection": 80,
            "ClientUnlockRequest": 72,
        },
        "steps": 765,
        "aborted": 72,
        "unmapped": {
            "AServer.serverLoop": 160,
            "AServer.serverReceive": 152,
            "AServer.serverRespond": 64,
        },
    },
    "raftkvs": {
        "actions": {"ElectionTimeout": 8, "ClientRequest": 160},
        "steps": 22915,
        "aborted": 13009,
        "unmapped": {
            "AClient.clientLoop": 160,
            "AClient.rcvResp": 160,
            "AServer.serverLoop": 160,
            "AServer.handleMsg+cpq": 80,
            "AServer.handleMsg+cgq": 80,
            "AServerRequestVote.requestVoteLoop": 16,
            "AServerBecomeLeader.serverBecomeLeaderLoop": 8,
            "AServerAppendEntries.serverAppendEntriesLoop": 1081,
            "AServerAppendEntries.appendEntriesLoop": 2152,
            "AServerAdvanceCommitIndex.serverAdvanceCommitIndexLoop": 2843,
            "AServerAdvanceCommitIndex.applyLoop": 2998,
        },
    },
}


@pytest.fixture(scope="module", params=sorted(EXPECTED))
def cut(request):
    contract = load_contract(request.param)
    stats = pgo.stats(contract, trace_files(contract, settings.SYSMOBENCH_DATA_DIR))
    return contract, stats, cut_with_summary(contract, settings.SYSMOBENCH_DATA_DIR)


def test_window_counts_per_action(cut):
    contract, _, result = cut
    assert dict(result.actions) == EXPECTED[contract.slug]["actions"]
    assert Counter(w["action"] for w in result.windows) == result.actions


def test_unmapped_labels_are_counted_not_cut(cut):
    contract, _, result = cut
    assert dict(result.unmapped) == EXPECTED[contract.slug]["unmapped"]
    assert set(result.unmapped) <= set(contract.unmapped_events)


def test_aborted_steps_are_skipped_and_counted(cut):
    contract, stats, result = cut
    assert (stats.steps, stats.aborted) == (
        EXPECTED[contract.slug]["steps"],
        EXPECTED[contract.slug]["aborted"],
    )
    windows_and_unmapped = len(result.windows) + sum(result.unmapped.values())
    assert windows_and_unmapped == stats.steps - stats.aborted


def test_replay_agrees_with_every_observation(cut):
    contract, stats, result = cut
    assert (stats.fifo_mismatches, stats.netlen_mismatches, stats.state_mismatches) == (0, 0, 0)
    for w in result.windows:
        if "input" in w:
            box = w["pre_state"]["network"][w["actor"]]
            assert box[0] == w["input"]
            assert w["post_state"]["network"][w["actor"]] == box[1:]


def test_windows_use_string_ids_and_schema_variables(cut):
    contract, _, result = cut
    for w in result.windows:
        assert isinstance(w["actor"], str)
        for side in ("pre_state", "post_state"):
            assert set(w[side]) <= set(contract.schema)
            for var, values in w[side].items():
                assert all(isinstance(k, str) for k in values), (var, values)
        assert "null" not in json.dumps(w)


# Every window of a run shows the same keys: the run's whole replayed state.
FULL_KEYS = {
    "dqueue": {"pc": 2, "network": 2, "requester": 1, "s": 1},
    "locksvc": {"pc": 6, "network": 6, "msg": 1, "q": 1, "hasLock": 5},
    "raftkvs": {
        **dict.fromkeys(["state", "currentTerm", "votedFor", "leader", "log", "commitIndex"], 1),
        **dict.fromkeys(["sm", "pc", "clientLeader", "req", "reqIdx"], 1),
        "network": 2,
    },
}


def test_windows_carry_the_whole_replayed_state(cut):
    contract, _, result = cut
    for w in result.windows:
        for side in ("pre_state", "post_state"):
            assert {v: len(keys) for v, keys in w[side].items()} == FULL_KEYS[contract.slug]


def test_locksvc_grant_windows_send_exactly_one_grant():
    contract = load_contract("locksvc")
    grants = [
        w
        for w in cut_with_summary(contract, settings.SYSMOBENCH_DATA_DIR).windows
        if w["action"] == "ServerGrantLock"
    ]
    assert len(grants) == 80
    for w in grants:
        pre, post = w["pre_state"]["network"], w["post_state"]["network"]
        changed = [n for n in post if post[n] != pre[n]]
        assert len(changed) == 1 and post[changed[0]] == pre[changed[0]] + [{"type": 3}]
        assert w["pre_state"]["pc"]["0"] == "serverRespond"


# --- malformed input ---------------------------------------------------------------------------

GOOD = (
    '{"archetypeName":"AConsumer","self":"1","isAbort":false,"clock":[[["AConsumer","1"],1]],'
    '"csElements":[{"indices":[],"name":{"name":".pc","prefix":"","self":"1"},"tag":"read",'
    '"value":"\\"AConsumer.c1\\""},{"indices":["0"],"name":{"name":"net","prefix":"AConsumer",'
    '"self":"1"},"tag":"write","value":"1"},{"indices":[],"name":{"name":".pc","prefix":"",'
    '"self":"1"},"oldValue":"\\"AConsumer.c1\\"","tag":"write","value":"\\"AConsumer.c2\\""}]}'
)


def _run_dir(tmp_path: Path, lines: list[str]) -> list[Path]:
    run = tmp_path / "run1"
    run.mkdir()
    path = run / "trace-1-1.log"
    path.write_text("\n".join(lines) + "\n")
    return [path]


def test_a_synthetic_step_becomes_a_request_window(tmp_path):
    contract = load_contract("dqueue")
    (window,) = list(pgo.cut(contract, _run_dir(tmp_path, [GOOD])))
    assert window["event"] == "AConsumer.c1"
    fixed = {"requester": {"0": "None"}, "s": {"0": 1}}
    assert window["pre_state"] == {"pc": {"1": "c1"}, "network": {"0": [], "1": []}, **fixed}
    assert window["post_state"] == {"pc": {"1": "c2"}, "network": {"0": ["1"], "1": []}, **fixed}


def test_an_aborted_step_leaves_no_window(tmp_path):
    contract = load_contract("dqueue")
    aborted = GOOD.replace('"isAbort":false', '"isAbort":true')
    later = GOOD.replace('[["AConsumer","1"],1]', '[["AConsumer","1"],2]')
    files = _run_dir(tmp_path, [aborted, later])
    windows = list(pgo.cut(contract, files))
    assert len(windows) == 1
    assert windows[0]["_where"].endswith(":2")
    assert pgo.stats(contract, files).aborted == 1


@pytest.mark.parametrize(
    "bad, what",
    [
        ("{not json", "not JSON"),
        (GOOD.replace('"isAbort":false', '"isAbort":"no"'), "isAbort"),
        (GOOD.replace('"value":"1"', '"value":"<<1"'), "value of net"),
        (GOOD.replace('[["AConsumer","1"],1]', '[["AProducer","0"],1]'), "own archetype"),
        (GOOD.replace('"tag":"read"', '"tag":"peek"', 1), "tag read/write"),
    ],
)
def test_malformed_line_names_file_and_line(tmp_path, bad, what):
    contract = load_contract("dqueue")
    files = _run_dir(tmp_path, [GOOD.replace("],1]]", "],0]]"), bad])
    with pytest.raises(WindowFormatError) as error:
        list(pgo.cut(contract, files))
    message = str(error.value)
    assert message.startswith(f"{files[0]}:2: ")
    assert what in message
