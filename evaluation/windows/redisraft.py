"""RedisRaft (the C raft library of RedisLabs/redisraft) traces -> canonical windows.

The SysMoBench C generator writes one flat JSON object per event (`timestamp, name, nid, ...`), per
node and merged. Per-node files are merged here by timestamp (one process, one clock), so either
input gives the same windows. Events are logged at the end of the library call that caused them,
after the sends and state persistence of that call, so a step of node n is the run of n's pending
events (PersistState, BecomeFollower, sends) closed by the event that names it:

| closing event | target action | input |
|---|---|---|
| BecomePreCandidate | ElectionTimeout | - |
| BecomeCandidate | BecomeCandidate | - |
| BecomeLeader (first of a burst) | BecomeLeader | - |
| PreVoteResponse / VoteResponse | RecvRequestVote | the oldest unanswered RequestVote to n |
| AppendEntriesResponse | RecvAppendEntries | the oldest unanswered AppendEntries to n |

Node ids become strings; a vote of -1 becomes "None". A window's id names the file and line of the
event that closed its step.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.windows.errors import WindowFormatError
from evaluation.windows.ndjson import read_objects

# A trace event or message as read from the NDJSON (JSON object).
Message = dict[str, Any]

VERSION = "1"
NO_VOTE = "None"
ROLES = {"follower", "precandidate", "candidate", "leader"}
CLOSING = {
    "BecomePreCandidate": "ElectionTimeout",
    "BecomeCandidate": "BecomeCandidate",
    "BecomeLeader": "BecomeLeader",
    "PreVoteResponse": "RecvRequestVote",
    "VoteResponse": "RecvRequestVote",
    "AppendEntriesResponse": "RecvAppendEntries",
}
# Events that end a step without a target action (the vote counting on the candidate).
NON_TARGET = {"ReceivedPreVoteResponse", "ReceivedVoteResponse"}


def cut(contract: Contract, files: list[Path]) -> list[dict[str, Any]]:
    """Merged traces are cut one by one; per-node files of one run are merged first."""
    merged = [Path(f) for f in files if not Path(f).name.startswith("node_")]
    per_node: dict[Path, list[Path]] = {}
    for f in files:
        if Path(f).name.startswith("node_"):
            per_node.setdefault(Path(f).parent, []).append(Path(f))
    windows: list[dict[str, Any]] = []
    for path in merged:
        windows.extend(_Cutter(path.parent.name).run(_events([path])))
    for folder, paths in per_node.items():
        windows.extend(_Cutter(folder.name).run(_events(sorted(paths))))
    return windows


def _events(paths: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    rows: list[tuple[float, int, str, dict[str, Any]]] = []
    order = 0
    for path in paths:
        for _, where, obj in read_objects(path):
            for key in ("timestamp", "name", "nid"):
                if key not in obj:
                    raise WindowFormatError(f"{where}: missing {key}")
            if isinstance(obj["timestamp"], bool) or not isinstance(obj["timestamp"], int | float):
                raise WindowFormatError(f"{where}: timestamp is not a number")
            order += 1
            rows.append((obj["timestamp"], order, where, obj))
    if len(paths) > 1:
        rows.sort(key=lambda row: (row[0], row[1]))
    return [(where, obj) for _, _, where, obj in rows]


def _envelope(kind: str, raw: dict[str, Any], where: str) -> dict[str, Any]:
    """The fields every message record starts with."""
    return {
        "type": kind,
        "from": _node(raw.get("from"), where),
        "to": _node(raw.get("to"), where),
        "term": _int(raw, "term", where),
    }


def _int(obj: dict[str, Any], key: str, where: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise WindowFormatError(f"{where}: {key} is missing or not an integer")
    return value


def _node(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise WindowFormatError(f"{where}: bad node id {value!r}")
    return str(value)


def _vote(value: Any, where: str) -> str:
    if value == -1:
        return NO_VOTE
    return _node(value, where)


def _window_id(where: str) -> str:
    """`<run>/<file>:<line>` of the event that closed the step: stable across hosts."""
    file, _, line = where.rpartition(":")
    path = Path(file)
    return f"{path.parent.name}/{path.name}:{line}"


class _Cutter:
    def __init__(self, trace_id: str) -> None:
        self.trace_id = trace_id
        self.state: dict[str, dict[str, Any]] = {}  # committed per-node state
        self.pending: dict[str, dict[str, Any]] = {}  # node -> provisional state of its open step
        self.vote_requests: dict[str, deque[Message]] = {}
        self.appends: dict[str, deque[Message]] = {}
        self.windows: list[dict[str, Any]] = []

    def run(self, events: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        for where, event in events:
            self.step(where, event)
        return self.windows

    def step(self, where: str, event: dict[str, Any]) -> None:
        name = event["name"]
        node = _node(event["nid"], where)
        if name == "InitState":
            self.init(node, event, where)
            return
        if node not in self.state:
            raise WindowFormatError(f"{where}: event for node {node} before its InitState")
        handler = getattr(self, "on_" + name, None)
        if handler is None:
            raise WindowFormatError(f"{where}: unknown event {name!r}")
        handler(node, event, where)

    # --- state -----------------------------------------------------------------------------

    def init(self, node: str, event: dict[str, Any], where: str) -> None:
        state = event.get("state")
        if not isinstance(state, dict) or event.get("role") not in ROLES:
            raise WindowFormatError(f"{where}: InitState needs role and state")
        self.state[node] = {
            "currentTerm": _int(state, "term", where),
            "votedFor": _vote(state.get("vote"), where),
            "state": event["role"],
            "commitIndex": _int(state, "commit", where),
            "logLen": 0,
            "logLastTerm": 0,
        }
        self.vote_requests[node] = deque()
        self.appends[node] = deque()

    def draft(self, node: str) -> dict[str, Any]:
        if node not in self.pending:
            self.pending[node] = dict(self.state[node])
        return self.pending[node]

    def close(
        self,
        node: str,
        where: str,
        event: dict[str, Any],
        action: str | None,
        msg: Message | None = None,
    ) -> None:
        post = self.pending.pop(node, None) or dict(self.state[node])
        pre = self.state[node]
        self.state[node] = post
        if action is None or (action == "BecomeLeader" and pre == post):
            # A repeated BecomeLeader log line for a node already leading is not a step.
            return
        window = {
            "_where": where,
            "window_id": _window_id(where),
            "trace_id": self.trace_id,
            "action": action,
            "event": event["name"],
            "actor": node,
            "pre_state": self.flat(node, pre),
            "post_state": self.flat(node, post),
        }
        if msg is not None:
            window["input"] = msg
        self.windows.append(window)

    def flat(self, actor: str, actor_state: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, dict[str, Any]] = {}
        for node, rec in self.state.items():
            rec = actor_state if node == actor else rec
            for var, value in rec.items():
                out.setdefault(var, {})[node] = value
        return out

    # --- events ----------------------------------------------------------------------------

    def on_PersistState(self, node: str, event: Message, where: str) -> None:
        draft = self.draft(node)
        draft["currentTerm"] = _int(event, "term", where)
        draft["votedFor"] = _vote(event.get("vote"), where)

    def on_BecomeFollower(self, node: str, event: Message, where: str) -> None:
        standalone = node not in self.pending
        draft = self.draft(node)
        draft["state"] = "follower"
        draft["currentTerm"] = _int(event, "term", where)
        if standalone:
            # A leader or candidate stepping down on its own (no message in the same call).
            self.close(node, where, event, None)

    def _become(self, node: str, event: Message, where: str, role: str) -> None:
        draft = self.draft(node)
        if event.get("role") != role:
            raise WindowFormatError(f"{where}: role {event.get('role')!r}, expected {role!r}")
        draft["state"] = role
        draft["currentTerm"] = _int(event, "term", where)
        self.close(node, where, event, CLOSING[event["name"]])

    def on_BecomePreCandidate(self, node: str, event: Message, where: str) -> None:
        self._become(node, event, where, "precandidate")

    def on_BecomeCandidate(self, node: str, event: Message, where: str) -> None:
        self._become(node, event, where, "candidate")

    def on_BecomeLeader(self, node: str, event: Message, where: str) -> None:
        self._become(node, event, where, "leader")

    def on_RequestVote(self, node: str, event: Message, where: str) -> None:
        raw = self._msg(event, where)
        msg = {
            **_envelope("RequestVote", raw, where),
            "lastLogIndex": _int(raw, "last_log_idx", where),
            "lastLogTerm": _int(raw, "last_log_term", where),
            # A request sent before the sender became a candidate belongs to the pre-vote round.
            "prevote": self.state[node]["state"] == "follower",
        }
        self._queue(self.vote_requests, msg, where)
        self.draft(node)

    def on_AppendEntries(self, node: str, event: Message, where: str) -> None:
        raw = self._msg(event, where)
        count = _int(raw, "n_entries", where)
        msg = {
            **_envelope("AppendEntries", raw, where),
            "prevLogIndex": _int(raw, "prev_log_idx", where),
            "prevLogTerm": _int(raw, "prev_log_term", where),
            # The trace gives only the entry count; a leader sends entries of its own term here.
            "entries": [{"term": _int(raw, "term", where)}] * count,
            "leaderCommit": _int(raw, "leader_commit", where),
        }
        self._queue(self.appends, msg, where)
        # What the leader sends shows its own log: prevLogIndex + entries is its last index.
        draft = self.draft(node)
        last = msg["prevLogIndex"] + count
        if last >= draft["logLen"]:
            draft["logLen"] = last
            draft["logLastTerm"] = msg["term"] if count else msg["prevLogTerm"]
        draft["commitIndex"] = max(draft["commitIndex"], msg["leaderCommit"])
        if self.state[node]["state"] == "leader":
            # Sends of a sitting leader are its periodic step, not part of another one.
            self.close(node, where, event, None)

    def _msg(self, event: Message, where: str) -> Message:
        raw = event.get("msg")
        if not isinstance(raw, dict):
            raise WindowFormatError(f"{where}: {event['name']} without a msg object")
        msg: Message = raw
        return msg

    def _queue(self, queues: dict[str, deque[Message]], msg: Message, where: str) -> None:
        if msg["to"] not in queues:
            raise WindowFormatError(f"{where}: message to unknown node {msg['to']}")
        queues[msg["to"]].append(msg)

    def _take(
        self, queue: deque[Message], match: Callable[[Message], bool], where: str, what: str
    ) -> Message:
        for msg in queue:
            if match(msg):
                queue.remove(msg)
                return msg
        raise WindowFormatError(f"{where}: {what} with no matching request")

    def on_PreVoteResponse(self, node: str, event: Message, where: str) -> None:
        self._vote_response(node, event, where, True)

    def on_VoteResponse(self, node: str, event: Message, where: str) -> None:
        self._vote_response(node, event, where, False)

    def _vote_response(self, node: str, event: Message, where: str, prevote: bool) -> None:
        msg = self._take(
            self.vote_requests[node], lambda m: m["prevote"] == prevote, where, event["name"]
        )
        self.close(node, where, event, "RecvRequestVote", msg)

    def on_AppendEntriesResponse(self, node: str, event: Message, where: str) -> None:
        msg = self._take(self.appends[node], lambda m: True, where, "AppendEntriesResponse")
        draft = self.draft(node)
        draft["currentTerm"] = _int(event, "term", where)
        if event.get("success") == 1:
            last = _int(event, "current_idx", where)
            new_last = msg["prevLogIndex"] + len(msg["entries"])
            draft["state"] = "follower"
            if last == new_last:
                draft["logLastTerm"] = (
                    msg["entries"][-1]["term"]
                    if msg["entries"]
                    else (msg["prevLogTerm"] if last else 0)
                )
            draft["logLen"] = last
            draft["commitIndex"] = max(draft["commitIndex"], min(msg["leaderCommit"], new_last))
        self.close(node, where, event, "RecvAppendEntries", msg)

    def on_ReceivedPreVoteResponse(self, node: str, event: Message, where: str) -> None:
        self.close(node, where, event, None)

    on_ReceivedVoteResponse = on_ReceivedPreVoteResponse
