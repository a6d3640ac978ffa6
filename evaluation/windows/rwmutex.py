"""RwMutex: traces of our Asterinas harness (harnesses/asterinas, upstream `ostd::sync::RwMutex`
driven by three OS threads) -> canonical windows over `lockWord` and `pc`.

Events follow the benchmark's rwmutex schema (`ReadLock`/`TryReadLock`, `WriteLock`/`TryWriteLock`,
`UpreadLock`/`TryUpreadLock`, `UpgradeLock`/`TryUpgradeLock`, `*Unlock`, with the post-action
`state` string); ours in addition: `ReadCall`/`WriteCall`/`UpreadCall` (a thread enters a blocking
call), `Downgrade`, and `waited` on a blocking acquisition (its first attempt failed and it
queued). A thread inside a blocking call is left out of `pc` until it acquires; the acquiring
thread's pre phase is "wait_<kind>" when it waited, else "idle".

`lockWord` is the lock word of the recorded history: reader count and WRITER/UPGRADEABLE_READER
bits of the guards held. The harness records an upgrade as one step when it completes, so
BEING_UPGRADED is never set in a window (a valid history: readers that leave while the upgrader
spins are ordered before its upgrade), and transient bits of failing try_read/try_upread calls are
not part of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.windows import scenario

VERSION = "1"
FIELDS = {"seq": int, "thread": int, "state": str, "action": str}
IN_CALL = None
CALLS = {"ReadCall": "read", "WriteCall": "write", "UpreadCall": "upread"}
HOLDING = {"read": "reading", "write": "writing", "upread": "upread"}
ACQUIRE = {
    "ReadLock": "read",
    "TryReadLock": "read",
    "WriteLock": "write",
    "TryWriteLock": "write",
    "UpreadLock": "upread",
    "TryUpreadLock": "upread",
}
RELEASE = {"ReadUnlock": "reading", "WriteUnlock": "writing", "UpreadUnlock": "upread"}


def cut(contract: Contract, files: list[Path]) -> Iterator[dict[str, Any]]:
    names = scenario.threads(contract)
    for path in files:
        yield from _Cutter(path, names).run()


class _Cutter:
    def __init__(self, path: Path, names: list[str]):
        self.path = path
        self.tid = scenario.trace_id(path)
        self.pc: dict[str, str | None] = {t: "idle" for t in names}

    def run(self) -> Iterator[dict[str, Any]]:
        for where, event in scenario.events(self.path, FIELDS):
            actor = str(event["thread"])
            if actor not in self.pc:
                scenario.fail(where, f"thread {actor} is not one of the pinned Threads")
            action = event["action"]
            if action in CALLS:
                self._expect(where, self.pc[actor] == "idle", f"{action} by a busy thread")
                self.pc[actor] = IN_CALL
                continue
            pre = self.state()
            self.step(where, event, actor, action, pre)
            if event["state"] != self.state_name():
                scenario.fail(where, f"state {event['state']!r} disagrees with the history")
            yield scenario.window(where, self.tid, event, actor, pre, self.state())

    def step(
        self, where: str, event: dict[str, Any], actor: str, action: str, pre: dict[str, Any]
    ) -> None:
        phase = self.pc[actor]
        if action in ACQUIRE:
            kind = ACQUIRE[action]
            blocking = not action.startswith("Try")
            self._expect(where, (phase is IN_CALL) if blocking else phase == "idle", action)
            if blocking:
                waited = event.get("waited")
                if not isinstance(waited, bool):
                    scenario.fail(where, f"{action} needs a boolean 'waited'")
                pre["pc"][actor] = f"wait_{kind}" if waited else "idle"
            self._expect(where, self._allowed(kind), f"{action} conflicts with the held guards")
            self.pc[actor] = HOLDING[kind]
        elif action in ("UpgradeLock", "TryUpgradeLock"):
            self._expect(where, phase == "upread" and self.readers() == 0, action)
            self.pc[actor] = "writing"
        elif action == "Downgrade":
            self._expect(where, phase == "writing", action)
            self.pc[actor] = "upread"
        elif action in RELEASE:
            self._expect(where, phase == RELEASE[action], f"{action} without that guard")
            self.pc[actor] = "idle"
        else:
            scenario.fail(where, f"unknown rwmutex event {action!r}")

    def _allowed(self, kind: str) -> bool:
        held = set(self.pc.values())
        if kind == "read":
            return "writing" not in held
        if kind == "upread":
            return not held & {"writing", "upread"}
        return not held & {"writing", "upread", "reading"}

    def readers(self) -> int:
        return sum(1 for p in self.pc.values() if p == "reading")

    def state(self) -> dict[str, Any]:
        held = set(self.pc.values())
        word = {
            "writer": "writing" in held,
            "upreader": "upread" in held,
            "beingUpgraded": False,
            "readers": self.readers(),
        }
        return {
            "lockWord": word,
            "pc": {t: p for t, p in self.pc.items() if p is not IN_CALL},
        }

    def state_name(self) -> str:
        word = self.state()["lockWord"]
        readers = word["readers"]
        count = "1_reader" if readers == 1 else "multi_readers"
        if word["writer"]:
            return "write_locked"
        if word["upreader"]:
            return "upread_locked" if readers == 0 else f"upread_and_{count}"
        return "unlocked" if readers == 0 else count

    @staticmethod
    def _expect(where: str, ok: bool, message: str) -> None:
        if not ok:
            scenario.fail(where, f"{message}: not possible in the event history")
