"""etcd-raft traces -> canonical windows.

Three layouts exist for the same system (docs/BENCHMARK_RULES.md §3) and one cutter reads all of
them, choosing per file from the shape of its first line:

- the upstream zap log (`{"tag": "trace", "event": {name, nid, state, role, log, msg?}}`): state is
  rebuilt per node from consecutive events;
- the fork's node-first windows (`{node, event, pre_state{node: {var}}, post_state, input}`);
- the fork's per-spec windows (`{id, node, pre{var: [per node]}, post, input?}`, file
  `windows_<Action>.ndjson`), whose value space we map back (roles, "None", 1-based node ids).

Node ids become strings and an unset vote becomes "None" (the contract's sentinel).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.windows.errors import WindowFormatError
from evaluation.windows.interleave import interleave
from evaluation.windows.ndjson import read_objects

# 2: upstream zap logs are cut with the log rebuilt from the MsgApp replay. 3: a scenario's
# windows from several files come out as one trace, interleaved in the order of the run
# (interleave.py), since P3 follows each trace's windows in order. 4: an upstream log's windows
# come out in the order of the events that opened them (before: of the events that closed them),
# and a window opened while another node's step awaited its post-state shows that step done.
VERSION = "4"

NO_VOTE = "None"
ROLE_NAMES = {
    "Follower": "StateFollower",
    "Candidate": "StateCandidate",
    "PreCandidate": "StatePreCandidate",
    "Leader": "StateLeader",
}
ACTION_NAMES = {
    "HandleAppendEntriesRequest": "HandleAppendEntries",
    "ClientRequest": "ClientProposal",
}
# The receiving node's state in upstream Receive* events is its state before the step; the state
# after the step shows in its next event other than a term-update BecomeFollower.
RECEIVE_ACTIONS = {
    ("ReceiveAppendEntriesRequest", "MsgApp"): "HandleAppendEntries",
    ("ReceiveAppendEntriesRequest", "MsgHeartbeat"): "HandleHeartbeat",
    ("ReceiveRequestVoteRequest", "MsgVote"): "HandleVoteRequest",
}
# Replicate is traced before the entry is appended: its effect shows in the node's next event.
DEFERRED_ACTIONS = {"Replicate": "ClientProposal"}
# BecomeCandidate is traced after the term bump, so its own state is the post-state.
IMMEDIATE_ACTIONS = {"BecomeCandidate": "ElectionTimeout"}


def cut(contract: Contract, files: list[Path]) -> list[dict[str, Any]]:
    """Every file's windows, each scenario's (trace_id's) merged into one trace in the order of
    the run; scenarios in the order they first appear."""
    per_trace: dict[str, list[list[dict[str, Any]]]] = {}
    for path in files:
        mine: dict[str, list[dict[str, Any]]] = {}
        for window in cut_file(Path(path)):
            mine.setdefault(window["trace_id"], []).append(window)
        for trace_id, windows in mine.items():
            per_trace.setdefault(trace_id, []).append(windows)
    return [w for sequences in per_trace.values() for w in interleave(sequences)]


def cut_file(path: Path) -> list[dict[str, Any]]:
    """Errors name the full path; window ids use `<folder>/<file>:<line>`, stable across hosts."""
    label = str(path)
    rows = [(number, obj) for number, _, obj in read_objects(path)]
    if not rows:
        return []
    first = rows[0][1]
    if isinstance(first.get("event"), dict):
        return _cut_upstream(rows, label)
    if "pre_state" in first:
        return [_from_node_first(obj, label, line) for line, obj in rows]
    if "pre" in first:
        action = _per_spec_action(path, f"{label}:{rows[0][0]}")
        return [_from_per_spec(obj, action, label, line) for line, obj in rows]
    raise WindowFormatError(f"{label}:{rows[0][0]}: unknown etcd trace layout")


def _node(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str) or value in ("", None):
        raise WindowFormatError(f"{where}: bad node id {value!r}")
    return str(value)


def _vote(value: Any, where: str) -> str:
    if value in (0, "0", "None", None):
        return NO_VOTE
    return _node(value, where)


def _int(value: Any, where: str, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise WindowFormatError(f"{where}: {field} is not an integer")
    return value


def _window(
    label: str,
    line: int,
    trace_id: str,
    action: str | None,
    event: str,
    actor: str,
    pre: dict[str, Any],
    post: dict[str, Any],
    msg: dict[str, Any] | None = None,
) -> dict[str, Any]:
    path = Path(label)
    window = {
        "_where": f"{label}:{line}",
        "window_id": f"{path.parent.name}/{path.name}:{line}",
        "trace_id": trace_id,
        "action": action,
        "event": event,
        "actor": actor,
        "pre_state": pre,
        "post_state": post,
    }
    if msg is not None:
        window["input"] = msg
    return window


# --- node-first windows ----------------------------------------------------------------------


def _node_first_state(nodes: Any, where: str) -> dict[str, Any]:
    if not isinstance(nodes, dict) or not nodes:
        raise WindowFormatError(f"{where}: state must map node ids to records")
    out: dict[str, dict[str, Any]] = {}
    try:
        for node, rec in nodes.items():
            key = _node(node, where)
            for var, value in rec.items():
                if var == "votedFor":
                    value = _vote(value, where)
                elif var == "state":
                    value = ROLE_NAMES.get(value, value)
                else:
                    value = _int(value, where, var)
                out.setdefault(var, {})[key] = value
    except AttributeError:
        raise WindowFormatError(f"{where}: node record is not an object") from None
    return out


def _from_node_first(obj: dict[str, Any], label: str, line: int) -> dict[str, Any]:
    where = f"{label}:{line}"
    for key in ("trace_id", "event", "node", "pre_state", "post_state"):
        if key not in obj:
            raise WindowFormatError(f"{where}: missing {key}")
    msg = _message(obj["input"], where) if "input" in obj else None
    action = _message_action(obj["event"], msg, where)
    return _window(
        label,
        line,
        str(obj["trace_id"]),
        action,
        obj["event"],
        _node(obj["node"], where),
        _node_first_state(obj["pre_state"], where),
        _node_first_state(obj["post_state"], where),
        msg,
    )


def _message_action(event: str, msg: dict[str, Any] | None, where: str) -> str:
    if msg is not None and msg["type"] == "MsgHeartbeat":
        return "HandleHeartbeat"
    if msg is not None and msg["type"] == "MsgVote":
        return "HandleVoteRequest"
    if msg is not None and msg["type"] == "MsgApp":
        return "HandleAppendEntries"
    action = ACTION_NAMES.get(event, event)
    if action not in {"ElectionTimeout", "ClientProposal"}:
        raise WindowFormatError(f"{where}: event {event!r} maps to no target action")
    return action


def _message(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or "type" not in raw:
        raise WindowFormatError(f"{where}: input must be a message record with a type")
    msg: dict[str, Any] = {}
    for key, value in raw.items():
        if key in ("from", "to"):
            msg[key] = _node(value, where)
        elif key == "type":
            msg[key] = str(value)
        elif key == "entries":
            if not isinstance(value, list):
                raise WindowFormatError(f"{where}: entries must be a list")
            if not all(isinstance(e, dict) for e in value):
                raise WindowFormatError(f"{where}: entries must be records")
            msg[key] = [{"term": _int(e.get("term"), where, "entry term")} for e in value]
        elif value is None:
            raise WindowFormatError(f"{where}: input.{key} is null")
        else:
            msg[key] = _int(value, where, f"input.{key}")
    return msg


# --- per-spec windows (ai_spec_*) -------------------------------------------------------------


def _per_spec_action(path: Path, where: str) -> str:
    stem = path.stem
    if not stem.startswith("windows_"):
        raise WindowFormatError(f"{where}: per-spec file name must be windows_<Action>.ndjson")
    return ACTION_NAMES.get(stem[len("windows_") :], stem[len("windows_") :])


def _per_spec_state(arrays: Any, where: str) -> dict[str, Any]:
    if not isinstance(arrays, dict):
        raise WindowFormatError(f"{where}: state must map variables to per-node arrays")
    nodes: dict[str, dict[str, Any]] = {}
    for var, values in arrays.items():
        if not isinstance(values, list):
            raise WindowFormatError(f"{where}: {var} is not a per-node array")
        for index, value in enumerate(values, start=1):
            nodes.setdefault(str(index), {})[var] = value
    return _node_first_state(nodes, where)


def _from_per_spec(obj: dict[str, Any], action: str, label: str, line: int) -> dict[str, Any]:
    where = f"{label}:{line}"
    for key in ("trace_id", "node", "pre", "post"):
        if key not in obj:
            raise WindowFormatError(f"{where}: missing {key}")
    pre = _per_spec_state(obj["pre"], where)
    msg = None
    if "input" in obj:
        msg = _message(obj["input"], where)
        _restore_vote_log_term(msg, pre)
    if msg is not None:
        action = _message_action(action, msg, where)
    return _window(
        label,
        line,
        str(obj["trace_id"]),
        action,
        action,
        _node(obj["node"], where),
        pre,
        _per_spec_state(obj["post"], where),
        msg,
    )


def _restore_vote_log_term(msg: dict[str, Any], pre: dict[str, Any]) -> None:
    """The fork's window generator wrote MsgVote.logTerm as a constant 0
    (docs/BENCHMARK_RULES.md §3).

    etcd fills that field with the candidate's last log term, which the window's pre-state holds
    whenever the candidate's log length equals the message's logIndex, so we restore it there.
    """
    if msg.get("type") != "MsgVote" or "logLastTerm" not in pre:
        return
    sender = msg.get("from")
    if pre.get("logLen", {}).get(sender) == msg.get("logIndex"):
        msg["logTerm"] = pre["logLastTerm"][sender]


# --- upstream zap log -------------------------------------------------------------------------


def _event_state(event: dict[str, Any], last_term: int, where: str) -> dict[str, Any]:
    try:
        state = event["state"]
        return {
            "currentTerm": _int(state["term"], where, "state.term"),
            "state": ROLE_NAMES.get(event["role"], event["role"]),
            "votedFor": _vote(state["vote"], where),
            "commitIndex": _int(state["commit"], where, "state.commit"),
            "logLen": _int(event["log"], where, "log"),
            "logLastTerm": last_term,
        }
    except (KeyError, TypeError):
        raise WindowFormatError(f"{where}: event lacks state/role/log") from None


def _upstream_message(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise WindowFormatError(f"{where}: msg is not an object")
    try:
        kind = raw["type"]
        msg = {
            "type": kind,
            "from": _node(raw["from"], where),
            "to": _node(raw["to"], where),
            "term": _int(raw["term"], where, "msg.term"),
        }
        if kind == "MsgVote":
            msg["logIndex"] = _int(raw["index"], where, "msg.index")
            msg["logTerm"] = _int(raw["logTerm"], where, "msg.logTerm")
        elif kind == "MsgApp":
            msg["prevLogIndex"] = _int(raw["index"], where, "msg.index")
            msg["prevLogTerm"] = _int(raw["logTerm"], where, "msg.logTerm")
            # The trace gives only the entry count; _Logs fills in the sender's entry terms.
            msg["entries"] = _int(raw["entries"], where, "msg.entries")
            msg["commitIndex"] = _int(raw["commit"], where, "msg.commit")
        elif kind == "MsgHeartbeat":
            msg["commitIndex"] = _int(raw["commit"], where, "msg.commit")
    except KeyError as exc:
        raise WindowFormatError(f"{where}: msg lacks {exc.args[0]}") from None
    return msg


class _Logs:
    """Every node's log as the terms of its entries, rebuilt from the trace.

    etcd's events give a node's log only as its last index, but a window needs the last entry's
    term (the contract's logLastTerm) and a MsgApp's entry terms. Both follow from the events:
    a node's own appends (client entries, a new leader's empty entry, conf changes, bootstrap)
    carry its current term; a MsgApp carries the sender's entries after its index, as the
    sender's log stood when it sent them (matched to the receive by the message's fields);
    the receiver applies them by etcd's rule (raftLog.maybeAppend: ignored below the commit
    index or when the previous entry's term differs, otherwise truncated at the first
    conflict). Each rebuilt log is checked against the length the node's next event reports;
    a trace the replay cannot explain is refused, never guessed.
    """

    def __init__(self) -> None:
        self.logs: dict[str, list[int]] = {}
        self.sent: dict[tuple[str, str], list[tuple[tuple[int, ...], list[int]]]] = {}
        self.pending: dict[str, list[int]] = {}

    def observe(self, node: str, name: str, event: dict[str, Any], where: str) -> int:
        """Brings `node`'s log up to this event; returns its last entry's term."""
        size = _int(event.get("log"), where, "log")
        term = _int((event.get("state") or {}).get("term"), where, "state.term")
        log = self.logs.setdefault(node, [])
        if node in self.pending and name != "BecomeFollower":
            log = self.logs[node] = self.pending.pop(node)
            if size != len(log):
                raise WindowFormatError(
                    f"{where}: the MsgApp replay gives {len(log)} entries, the node reports {size}"
                )
        if name == "InitState" and size <= len(log):
            # A restart keeps what the node had persisted: a prefix of its log.
            del log[size:]
        if size < len(log):
            raise WindowFormatError(f"{where}: log shrank to {size} outside an append")
        log.extend([term] * (size - len(log)))
        return log[-1] if log else 0

    def sent_app(self, msg: dict[str, Any], where: str) -> None:
        log = self.logs[msg["from"]]
        start, count = msg["prevLogIndex"], msg["entries"]
        if start + count > len(log):
            raise WindowFormatError(f"{where}: MsgApp sends entries beyond the sender's log")
        self.check_term(log, start, msg["prevLogTerm"], where)
        key = (msg["term"], start, msg["prevLogTerm"], count, msg["commitIndex"])
        self.sent.setdefault((msg["from"], msg["to"]), []).append((key, log[start : start + count]))

    def check_term(self, log: list[int], index: int, term: int, where: str) -> None:
        """etcd's own record of a term in the sender's log (a MsgApp's logTerm, a MsgVote's)
        must agree with the replay's: every message sent is a check of the rebuilt logs."""
        rebuilt = log[index - 1] if 0 < index <= len(log) else 0
        if rebuilt != term:
            raise WindowFormatError(
                f"{where}: etcd sends term {term} at index {index}, the replay has {rebuilt}"
            )

    def received_app(self, msg: dict[str, Any], state: dict[str, Any], where: str) -> list[int]:
        """The entry terms of a received MsgApp; the receiver's log after it becomes pending."""
        key = (msg["term"], msg["prevLogIndex"], msg["prevLogTerm"], msg["entries"])
        queue = self.sent.get((msg["from"], msg["to"]), [])
        found = next((i for i, (k, _) in enumerate(queue) if k == (*key, msg["commitIndex"])), None)
        if found is None:
            raise WindowFormatError(f"{where}: MsgApp received that the trace never sent")
        terms = queue.pop(found)[1]
        self.pending[msg["to"]] = _appended(
            self.logs[msg["to"]], msg, terms, state["currentTerm"], state["commitIndex"]
        )
        return terms


def _appended(
    log: list[int], msg: dict[str, Any], terms: list[int], term: int, commit: int
) -> list[int]:
    index = msg["prevLogIndex"]
    matches = index == 0 or (index <= len(log) and log[index - 1] == msg["prevLogTerm"])
    if msg["term"] < term or index < commit or not matches:
        return list(log)
    out = list(log)
    for offset, entry_term in enumerate(terms):
        position = index + offset
        if position < len(out) and out[position] == entry_term:
            continue
        return out[:position] + terms[offset:]
    return out


def _flatten(nodes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, dict[str, Any]] = {}
    for node, rec in nodes.items():
        for var, value in rec.items():
            out.setdefault(var, {})[node] = value
    return out


def _with_node(flat: dict[str, Any], node: str, rec: dict[str, Any]) -> dict[str, Any]:
    """Only the actor moves in a window, whatever other nodes did while it was processing."""
    out = {var: dict(values) for var, values in flat.items()}
    for var, value in rec.items():
        out[var][node] = value
    return out


def _closes(waiting: dict[str, Any], name: str, event: dict[str, Any]) -> bool:
    """Whether a node's event shows the state after the step a pending window waits for.

    A term update (BecomeFollower) happens inside the step. So does a granted vote's reply:
    etcd sends MsgVoteResp before it records the vote (raft.Step, case MsgVote), so the
    grant shows only in the node's next event after it.
    """
    if name == "BecomeFollower":
        return False
    msg = event.get("msg")
    granted = name == "SendRequestVoteResponse" and isinstance(msg, dict) and not msg.get("reject")
    return not (waiting["action"] == "HandleVoteRequest" and granted)


def rebuilt_logs(path: Path) -> dict[str, list[int]]:
    """Each node's log (entry terms) as the replay of an upstream-layout trace leaves it."""
    logs = _Logs()
    _cut_upstream([(number, obj) for number, _, obj in read_objects(path)], str(path), logs)
    for node, log in logs.pending.items():
        logs.logs[node] = log
    return logs.logs


def _cut_upstream(
    rows: list[tuple[int, dict[str, Any]]], label: str, logs: _Logs | None = None
) -> list[dict[str, Any]]:
    trace_id = Path(label).stem
    nodes: dict[str, dict[str, Any]] = {}
    pending: dict[str, dict[str, Any]] = {}  # node -> window waiting for its post-state
    # node -> the windows opened while its pending window waited (they see its step done)
    during: dict[str, list[dict[str, Any]]] = {}
    logs = logs or _Logs()
    windows: list[dict[str, Any]] = []  # closed
    opened: list[dict[str, Any]] = []  # in the order of the log
    for line, obj in rows:
        where = f"{label}:{line}"
        event = obj.get("event")
        if obj.get("tag") != "trace" or not isinstance(event, dict) or "name" not in event:
            raise WindowFormatError(f"{where}: expected a zap trace line with an event object")
        node = _node(event.get("nid"), where)
        name = event["name"]
        state = _event_state(event, logs.observe(node, name, event, where), where)
        waiting = pending.get(node)
        if waiting is not None and _closes(waiting, name, event):
            waiting["post_state"] = _with_node(waiting["pre_state"], node, state)
            _step_done(during.pop(node, []), node, state)
            windows.append(waiting)
            del pending[node]
        before = _flatten(nodes) if node in nodes else None
        nodes[node] = state
        msg = _upstream_message(event["msg"], where) if "msg" in event else None
        if msg is not None:
            _replay_message(logs, name, node, msg, state, where)
        new = _opens(f"{label}:{line}", trace_id, event, node, msg, _flatten(nodes), before)
        if new is None:
            continue
        if new["post_state"]:
            windows.append(new)
        else:
            pending[node] = new
        opened.append(new)
        for other in pending.keys() - {node}:
            during.setdefault(other, []).append(new)
    # In the order of the events that opened them (P3 follows a trace in log order), not of the
    # events that closed them; a window still open at the end of the trace has no post-state.
    closed = {id(w) for w in windows}
    return [w for w in opened if id(w) in closed]


def _replay_message(
    logs: _Logs, name: str, node: str, msg: dict[str, Any], state: dict[str, Any], where: str
) -> None:
    """Checks a sent message against the rebuilt logs; a received MsgApp gets its entry terms."""
    if name == "SendRequestVoteRequest" and msg["type"] == "MsgVote":
        logs.check_term(logs.logs[node], msg["logIndex"], msg["logTerm"], where)
    if msg["type"] == "MsgApp":
        if name == "SendAppendEntriesRequest":
            logs.sent_app(msg, where)
        elif name == "ReceiveAppendEntriesRequest":
            terms = logs.received_app(msg, state, where)
            msg["entries"] = [{"term": t} for t in terms]


def _opens(
    where: str,
    trace_id: str,
    event: dict[str, Any],
    node: str,
    msg: dict[str, Any] | None,
    now: dict[str, Any],
    before: dict[str, Any] | None,
) -> dict[str, Any] | None:
    """The window this event of `node` opens, if any: complete (its post-state given) for an
    action traced after its step, else waiting for the node's next event for its post-state.
    `now` is every node's state with this event's; `before`, without it (None: the node's
    first event). `where` is `<label>:<line>`."""
    label, _, line = where.rpartition(":")
    name = event["name"]
    key = (name, msg["type"] if msg else "")
    action = RECEIVE_ACTIONS.get(key) or (DEFERRED_ACTIONS.get(name) if before else None)
    if action is not None:
        return _window(label, int(line), trace_id, action, name, node, now, {}, msg)
    if before is not None and name in IMMEDIATE_ACTIONS:
        after = _with_node(before, node, {var: now[var][node] for var in now})
        return _window(
            label, int(line), trace_id, IMMEDIATE_ACTIONS[name], name, node, before, after
        )
    return None


def _step_done(later: list[dict[str, Any]], node: str, state: dict[str, Any]) -> None:
    """A window's step is the node's at the event that opened it (etcd steps a node atomically);
    the trace shows its result only at the node's next event. The windows opened in between
    (other nodes' events: the node logs nothing else meanwhile) show the node as the step left it,
    so that they follow from this window's post-state."""
    for window in later:
        for side in ("pre_state", "post_state"):
            if window[side]:
                for var, value in state.items():
                    window[side][var][node] = value
