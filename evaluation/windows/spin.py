"""Spin: the SysMoBench canonical windows (`action_windows.jsonl`), already var-first.

The file's `action` field is the trace event (AcquireSuccess, Release, TryAcquireBlocking); the
dispatcher maps it to a target action through the contract.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.windows.errors import WindowFormatError
from evaluation.windows.ndjson import read_objects

VERSION = "1"

PC_VALUES = {"idle", "acquiring", "locked"}
LOCK_VALUES = {"unlocked", "locked"}


def cut(contract: Contract, files: list[Path]) -> Iterator[dict[str, Any]]:
    threads = _threads(contract)
    for path in files:
        for _, where, raw in read_objects(path):
            yield _window(raw, where, threads)


def _threads(contract: Contract) -> set[str] | None:
    text = contract.constants.get("Threads", "")
    names = [part.strip().strip('"') for part in text.strip("{} ").split(",") if part.strip()]
    return set(names) or None


def _window(raw: dict[str, Any], where: str, threads: set[str] | None) -> dict[str, Any]:
    for key in ("window_id", "trace_id", "action", "actor", "pre_state", "post_state"):
        if key not in raw:
            raise WindowFormatError(f"{where}: missing {key}")
    actor = str(raw["actor"])
    if threads is not None and actor not in threads:
        raise WindowFormatError(f"{where}: actor {actor!r} is not one of the pinned Threads")
    return {
        "_where": where,
        "window_id": str(raw["window_id"]),
        "trace_id": str(raw["trace_id"]),
        "event": str(raw["action"]),
        "actor": actor,
        "pre_state": _state(raw["pre_state"], f"{where}: pre_state", threads),
        "post_state": _state(raw["post_state"], f"{where}: post_state", threads),
    }


def _state(state: Any, where: str, threads: set[str] | None) -> dict[str, Any]:
    if not isinstance(state, dict) or set(state) != {"lockState", "pc"}:
        raise WindowFormatError(f"{where}: expected exactly lockState and pc")
    if state["lockState"] not in LOCK_VALUES:
        raise WindowFormatError(f"{where}: lockState {state['lockState']!r} is not a known value")
    pc = state["pc"]
    if not isinstance(pc, dict) or (threads is not None and set(pc) != threads):
        raise WindowFormatError(f"{where}: pc must map every thread")
    bad = sorted(v for v in pc.values() if v not in PC_VALUES)
    if bad:
        raise WindowFormatError(f"{where}: pc values {bad} are not known phases")
    return {"lockState": state["lockState"], "pc": dict(pc)}
