"""Per-task knowledge the PGo cutter needs: which trace variables are which schema variables, how
their values translate to the contract's vocabulary (process ids as strings, PGo's `Nil` and
`defaultInitValue` as sentinels), who the actor of a step is, and how labels become events.
The contracts in tasks_data/{dqueue,locksvc,raftkvs}/task.yaml document the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evaluation.windows.pgo_values import DEFAULT_INIT, TlaSet, Value

if TYPE_CHECKING:  # pgo imports the profiles
    from evaluation.windows.pgo import Step

NONE = "None"


def _id(value: Value) -> str:
    if value is DEFAULT_INIT:
        return NONE
    return str(value)


def _raft_id(value: Value) -> str:
    """raftkvs numbers servers from 1; 0 is its `Nil`."""
    if value is DEFAULT_INIT or value == 0:
        return NONE
    return str(value)


def _plain(value: Value) -> Any:
    if isinstance(value, TlaSet):
        raise ValueError("a set cannot appear in a window")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is DEFAULT_INIT:
        return NONE
    return value


@dataclass
class Profile:
    slug: str
    network: str
    variables: dict[str, tuple[str, str, str]]
    pc_archetypes: frozenset[str]
    netlen: str = ""
    streams: frozenset[str] = frozenset()
    initial: dict[tuple[str, str], object] = field(default_factory=dict)
    # Archetypes whose `self` owns a mailbox: it starts empty whether or not the run touches it.
    mailbox_archetypes: frozenset[str] = frozenset()

    def initial_values(self) -> dict[tuple[str, str], object]:
        return dict(self.initial)

    def variable(self, archetype: str, name: str) -> tuple[str, str, str] | None:
        return self.variables.get(f"{archetype}.{name}") or self.variables.get(f"*.{name}")

    def has_pc(self, archetype: str) -> bool:
        return archetype in self.pc_archetypes

    @staticmethod
    def short_label(label: str) -> str:
        return label.split(".", 1)[1]

    def actor(self, step: Step) -> str:
        return step.self_id

    def event(self, step: Step) -> str:
        return step.label or ""

    def input(self, step: Step, consumed: Any) -> Any:
        return consumed

    def normalise(self, var: str, value: Value) -> Any:
        return _plain(value)

    def normalise_message(self, box: str, value: Value) -> Any:
        return _plain(value)

    def stream_next(self, var: str, value: Any) -> Any:
        return value + 1


class DqueueProfile(Profile):
    PRODUCER = "0"

    def normalise(self, var: str, value: Value) -> Any:
        if var == "requester":
            return _id(value)
        return _plain(value)

    def normalise_message(self, box: str, value: Value) -> Any:
        # Requests carry the consumer's id; the producer's replies carry the produced integer.
        return _id(value) if box == self.PRODUCER else _plain(value)

    def input(self, step: Step, consumed: Any) -> Any:
        return None


class LocksvcProfile(Profile):
    NO_MSG = {"from": NONE, "type": 0}

    def normalise(self, var: str, value: Value) -> Any:
        if var == "msg":
            return self.NO_MSG if value is DEFAULT_INIT else self._message(value)
        if var == "q":
            return [_id(v) for v in value]
        return _plain(value)

    def normalise_message(self, box: str, value: Value) -> Any:
        return self._message(value)

    @staticmethod
    def _message(value: Value) -> dict[str, Any]:
        # LockMsg/UnlockMsg are records [from, type]; the server's grant is the bare integer
        # GrantMsg (3), kept as a record [type |-> 3] so every message has a `type` field.
        if isinstance(value, dict):
            return {"from": _id(value["from"]), "type": value["type"]}
        return {"type": value}

    def event(self, step: Step) -> str:
        sends = any(e.tag == "write" and e.name == self.network for e in step.elements)
        if step.label == "AServer.serverRespond" and sends:
            return "AServer.serverRespond+grant"
        return step.label or ""


_RAFT_ID_FIELDS = {"msource", "mdest", "mleaderHint", "client"}


def _raft_plain(value: Value) -> Any:
    if isinstance(value, dict):
        return {
            str(k): _raft_id(v) if k in _RAFT_ID_FIELDS else _raft_plain(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_raft_plain(v) for v in value]
    if value is DEFAULT_INIT:
        return {}
    return _plain(value)


class RaftkvsProfile(Profile):
    ID_VARS = frozenset({"votedFor", "leader", "clientLeader"})

    def actor(self, step: Step) -> str:
        # One Raft server runs as several archetypes with their own `self`; `srvId` names the
        # server they act for. AServer and AClient act as themselves.
        for e in step.elements:
            if e.name == "srvId" and e.tag == "read":
                return _raft_id(e.value)
        return step.self_id

    def event(self, step: Step) -> str:
        if step.label == "AServer.handleMsg":
            for e in step.elements:
                if e.name == "m" and e.tag == "read" and isinstance(e.value, dict):
                    return f"AServer.handleMsg+{e.value.get('mtype')}"
        return step.label or ""

    def input(self, step: Step, consumed: Any) -> Any:
        if step.label == "AServer.handleMsg":
            for e in step.elements:
                if e.name == "m" and e.tag == "read" and isinstance(e.value, dict):
                    return _raft_plain(e.value)
        return None

    def normalise(self, var: str, value: Value) -> Any:
        if var in self.ID_VARS:
            return _raft_id(value)
        return _raft_plain(value)

    def normalise_message(self, box: str, value: Value) -> Any:
        return _raft_plain(value)


PROFILES: dict[str, Profile] = {
    "dqueue": DqueueProfile(
        slug="dqueue",
        network="net",
        variables={
            "AProducer.requester": ("requester", "self", "state"),
            "AProducer.s": ("s", "self", "stream"),
        },
        pc_archetypes=frozenset({"AProducer", "AConsumer"}),
        streams=frozenset({"s"}),
        # The producer's stream yields 1, 2, 3, ... (every run's first read of `s` is 1).
        initial={("s", "0"): 1, ("requester", "0"): NONE},
        mailbox_archetypes=frozenset({"AProducer", "AConsumer"}),
    ),
    "locksvc": LocksvcProfile(
        slug="locksvc",
        network="network",
        variables={
            "AServer.msg": ("msg", "self", "state"),
            "AServer.q": ("q", "self", "state"),
            "AClient.hasLock": ("hasLock", "index", "state"),
        },
        pc_archetypes=frozenset({"AServer", "AClient"}),
        # PGo's initial values: hasLock all FALSE, msg unset (defaultInitValue), q empty.
        initial={
            **{("hasLock", str(c)): False for c in range(1, 6)},
            ("msg", "0"): LocksvcProfile.NO_MSG,
            ("q", "0"): [],
        },
        mailbox_archetypes=frozenset({"AServer", "AClient"}),
    ),
    "raftkvs": RaftkvsProfile(
        slug="raftkvs",
        network="net",
        netlen="netLen",
        variables={
            "AClient.leader": ("clientLeader", "self", "state"),
            "AClient.req": ("req", "self", "state"),
            "AClient.reqIdx": ("reqIdx", "self", "state"),
            "*.state": ("state", "index", "state"),
            "*.currentTerm": ("currentTerm", "index", "state"),
            "*.votedFor": ("votedFor", "index", "state"),
            "*.leader": ("leader", "index", "state"),
            "*.log": ("log", "index", "state"),
            "*.commitIndex": ("commitIndex", "index", "state"),
            "*.sm": ("sm", "index", "state"),
        },
        pc_archetypes=frozenset({"AClient"}),
        mailbox_archetypes=frozenset({"AServer", "AClient"}),
    ),
}
