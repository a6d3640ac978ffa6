"""ZooKeeper election traces of our ensemble harness (harnesses/zookeeper) -> canonical windows.

Each file is one run: NDJSON events in the benchmark's envelope (`event, step, node, subnode,
data`) plus `state`, the node's election state right after the event. A window is one event:
the pre-state is every node's state before it (a node not heard from yet is a fresh LOOKING node
of round 0 voting for itself with zxid 0), the post-state the same with the actor's entry
replaced. `HandleNotification` windows carry the notification as `input`.

Value conventions: servers are "s<id>"; a zxid (64 bits: epoch << 32 | counter) becomes
epoch * 1000 + counter, which keeps the order and fits TLC's 32-bit integers (a counter of 1000
or more is refused); `recvVotes[s][j]` is the leader j's latest vote in s's round names, "none"
if s has none from j.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.windows.errors import WindowFormatError
from evaluation.windows.ndjson import read_objects

VERSION = "1"
NONE = "none"
STATES = {"LOOKING", "FOLLOWING", "LEADING"}
STATE_KEYS = {
    "state",
    "round",
    "leader",
    "voteZxid",
    "voteEpoch",
    "lastZxid",
    "peerEpoch",
    "votes",
    "recvVotes",
}
ZXID_COUNTER_LIMIT = 1000


def cut(contract: Contract, files: list[Path]) -> Iterator[dict[str, Any]]:
    servers = _servers(contract)
    for path in files:
        yield from _Run(Path(path), servers).windows()


def _servers(contract: Contract) -> list[str]:
    text = contract.constants.get("Server", "")
    names = [part.strip().strip('"') for part in text.strip("{} ").split(",") if part.strip()]
    if not names:
        raise WindowFormatError(f"{contract.slug}:0: the contract pins no Server constant")
    return names


def zxid(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise WindowFormatError(f"{where}: zxid {value!r} is not a non-negative integer")
    epoch, counter = value >> 32, value & 0xFFFFFFFF
    if counter >= ZXID_COUNTER_LIMIT:
        raise WindowFormatError(f"{where}: zxid counter {counter} does not fit the encoding")
    return epoch * ZXID_COUNTER_LIMIT + counter


def _nat(obj: dict[str, Any], key: str, where: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise WindowFormatError(f"{where}: {key} is missing or not a non-negative integer")
    return value


class _Run:
    def __init__(self, path: Path, servers: list[str]):
        self.path = path
        self.servers = servers
        self.trace_id = path.stem
        # Every node starts as a fresh peer: LOOKING in round 0, voting for itself.
        self.state = {s: self.fresh(s) for s in servers}

    def fresh(self, server: str) -> dict[str, Any]:
        return {
            "state": "LOOKING",
            "currentEpoch": 0,
            "votedFor": server,
            "voteZxid": 0,
            "voteEpoch": 0,
            "lastZxid": 0,
            "peerEpoch": 0,
            "recvVotes": dict.fromkeys(self.servers, NONE),
        }

    def server(self, value: Any, where: str) -> str:
        name = value if isinstance(value, str) else f"s{value}"
        if isinstance(value, bool) or name not in self.servers:
            raise WindowFormatError(f"{where}: {value!r} is not one of the pinned servers")
        return name

    def node_state(self, raw: Any, where: str) -> dict[str, Any]:
        if not isinstance(raw, dict) or set(raw) != STATE_KEYS:
            raise WindowFormatError(f"{where}: state must have exactly {sorted(STATE_KEYS)}")
        if raw["state"] not in STATES:
            raise WindowFormatError(f"{where}: unknown peer state {raw['state']!r}")
        recv = raw["recvVotes"]
        if not isinstance(recv, dict):
            raise WindowFormatError(f"{where}: recvVotes is not an object")
        votes = dict.fromkeys(self.servers, NONE)
        for sender, leader in recv.items():
            votes[self.server(int(sender), where)] = self.server(leader, where)
        return {
            "state": raw["state"],
            "currentEpoch": _nat(raw, "round", where),
            "votedFor": self.server(raw["leader"], where),
            "voteZxid": zxid(raw["voteZxid"], where),
            "voteEpoch": _nat(raw, "voteEpoch", where),
            "lastZxid": zxid(raw["lastZxid"], where),
            "peerEpoch": _nat(raw, "peerEpoch", where),
            "recvVotes": votes,
        }

    def message(self, data: Any, where: str) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise WindowFormatError(f"{where}: data is not an object")
        if data.get("state") not in STATES:
            raise WindowFormatError(f"{where}: notification state {data.get('state')!r}")
        return {
            "from": self.server(data.get("from"), where),
            "to": self.server(data.get("to"), where),
            "state": data["state"],
            "leader": self.server(data.get("leader"), where),
            "zxid": zxid(data.get("zxid"), where),
            "electionEpoch": _nat(data, "electionEpoch", where),
            "peerEpoch": _nat(data, "peerEpoch", where),
        }

    def flat(self) -> dict[str, Any]:
        out: dict[str, dict[str, Any]] = {}
        for server, rec in self.state.items():
            for var, value in rec.items():
                out.setdefault(var, {})[server] = value
        return out

    def windows(self) -> Iterator[dict[str, Any]]:
        for _, where, raw in read_objects(self.path):
            for key in ("event", "step", "node", "state"):
                if key not in raw:
                    raise WindowFormatError(f"{where}: missing {key}")
            actor = self.server(raw["node"], where)
            pre = self.flat()
            self.state[actor] = self.node_state(raw["state"], where)
            window = {
                "_where": where,
                "window_id": f"{self.trace_id}:{raw['step']}",
                "trace_id": self.trace_id,
                "event": str(raw["event"]),
                "actor": actor,
                "pre_state": pre,
                "post_state": self.flat(),
            }
            if raw["event"] == "HandleNotification":
                window["input"] = self.message(raw.get("data"), where)
            yield window
