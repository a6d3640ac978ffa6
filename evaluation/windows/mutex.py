"""Mutex: traces of our Asterinas harness (harnesses/asterinas, upstream `ostd::sync::Mutex` driven
by three OS threads) -> canonical windows over `lockState` and `pc`.

Events follow the benchmark's mutex schema (`Lock`, `TryLock`, `Unlock`, each with the post-action
`state`); `LockCall` (ours) marks a thread entering lock(). A thread inside lock() that does not
hold the mutex is either trying its compare-and-swap or asleep in the wait queue, which no event
tells apart, so its `pc` key is left out of windows until it gets the lock (partial `pc`); the
acting thread of a `Lock` is "acquiring" just before its successful compare-and-swap.

| event | pre pc[actor] | post pc[actor] | lockState |
|---|---|---|---|
| Lock | acquiring | locked | unlocked -> locked |
| TryLock | idle | locked | unlocked -> locked |
| Unlock | locked | idle | locked -> unlocked |
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.windows import scenario

VERSION = "1"
FIELDS = {"seq": int, "thread": int, "state": str, "action": str}
IN_CALL = None  # inside lock(), acquiring or waiting: not observable


def cut(contract: Contract, files: list[Path]) -> Iterator[dict[str, Any]]:
    names = scenario.threads(contract)
    for path in files:
        yield from _cut_file(path, names)


def _cut_file(path: Path, names: list[str]) -> Iterator[dict[str, Any]]:
    tid = scenario.trace_id(path)
    pc: dict[str, str | None] = {t: "idle" for t in names}
    locked = False
    for where, event in scenario.events(path, FIELDS):
        actor = str(event["thread"])
        if actor not in pc:
            scenario.fail(where, f"thread {actor} is not one of the pinned Threads")
        action = event["action"]
        if action == "LockCall":
            scenario.expect(
                where, pc[actor] == "idle", f"thread {actor} calls lock() while not idle"
            )
            pc[actor] = IN_CALL
            continue
        pre = _state(locked, pc)
        if action == "Lock":
            scenario.expect(
                where, pc[actor] is IN_CALL and not locked, "Lock outside lock() or while held"
            )
            pre["pc"][actor] = "acquiring"
            locked, pc[actor] = True, "locked"
        elif action == "TryLock":
            scenario.expect(where, pc[actor] == "idle" and not locked, "TryLock while busy or held")
            locked, pc[actor] = True, "locked"
        elif action == "Unlock":
            scenario.expect(
                where, pc[actor] == "locked", f"Unlock by {actor}, which does not hold it"
            )
            locked, pc[actor] = False, "idle"
        else:
            scenario.fail(where, f"unknown mutex event {action!r}")
        if event["state"] != ("locked" if locked else "unlocked"):
            scenario.fail(where, f"state {event['state']!r} disagrees with the event history")
        yield scenario.window(where, tid, event, actor, pre, _state(locked, pc))


def _state(locked: bool, pc: dict[str, str | None]) -> dict[str, Any]:
    return {
        "lockState": "locked" if locked else "unlocked",
        "pc": {t: phase for t, phase in pc.items() if phase is not IN_CALL},
    }
