"""Spin: traces of our Asterinas harness (harnesses/asterinas, upstream `ostd::sync::SpinLock`
driven by three OS threads) -> canonical windows over `lockState` and `pc`, the same windows
SysMoBench's spin corpus has (`spin.py` reads those).

Events follow the benchmark's spin windows (`TryAcquireBlocking`, `AcquireSuccess`, `Release`,
each with the post-action `state`); ours in addition: `TryAcquireFail` (try_lock() returned None)
and the `call` of an acquisition ("lock" or "try_lock"). A thread inside lock() spins on the
compare-and-swap and does nothing else, so unlike the mutex its phase is known: "acquiring".

| event | pre pc[actor] | post pc[actor] | lockState |
|---|---|---|---|
| TryAcquireBlocking | idle | acquiring | unchanged |
| AcquireSuccess (call lock) | acquiring | locked | unlocked -> locked |
| AcquireSuccess (call try_lock) | idle | locked | unlocked -> locked |
| Release | locked | idle | locked -> unlocked |
| TryAcquireFail | idle | idle | unchanged: no window |

A failed try_lock() changes no variable, so it gives no window (SysMoBench's spin windows drop
such steps too); its `state` is not checked: the harness records it after the call returned, when
the holder that made it fail may not have been recorded yet.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.windows import scenario

VERSION = "1"
FIELDS = {"seq": int, "thread": int, "state": str, "action": str}
CALLS = {"lock": "acquiring", "try_lock": "idle"}


def cut(contract: Contract, files: list[Path]) -> Iterator[dict[str, Any]]:
    names = scenario.threads(contract)
    for path in files:
        yield from _cut_file(path, names)


def _cut_file(path: Path, names: list[str]) -> Iterator[dict[str, Any]]:
    tid = scenario.trace_id(path)
    pc = {t: "idle" for t in names}
    locked = False
    for where, event in scenario.events(path, FIELDS):
        actor = str(event["thread"])
        if actor not in pc:
            scenario.fail(where, f"thread {actor} is not one of the pinned Threads")
        action = event["action"]
        pre = _state(locked, pc)
        if action == "TryAcquireFail":
            scenario.expect(
                where, pc[actor] == "idle", f"thread {actor} calls try_lock() while not idle"
            )
            continue
        if action == "TryAcquireBlocking":
            scenario.expect(
                where, pc[actor] == "idle", f"thread {actor} calls lock() while not idle"
            )
            pc[actor] = "acquiring"
        elif action == "AcquireSuccess":
            call = event.get("call")
            phase = CALLS.get(call) if isinstance(call, str) else None
            scenario.expect(where, phase is not None, f"call {call!r} is not lock or try_lock")
            scenario.expect(
                where, pc[actor] == phase, f"thread {actor} acquires from {pc[actor]!r}"
            )
            scenario.expect(where, not locked, f"thread {actor} acquires a held lock")
            locked, pc[actor] = True, "locked"
        elif action == "Release":
            scenario.expect(
                where, pc[actor] == "locked", f"Release by {actor}, which does not hold it"
            )
            locked, pc[actor] = False, "idle"
        else:
            scenario.fail(where, f"unknown spin event {action!r}")
        if event["state"] != ("locked" if locked else "unlocked"):
            scenario.fail(where, f"state {event['state']!r} disagrees with the event history")
        yield scenario.window(where, tid, event, actor, pre, _state(locked, pc))


def _state(locked: bool, pc: dict[str, str]) -> dict[str, Any]:
    return {"lockState": "locked" if locked else "unlocked", "pc": dict(pc)}
