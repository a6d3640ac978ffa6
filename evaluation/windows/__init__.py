"""Trace formats -> canonical transition windows (docs/ARCHITECTURE.md, "Interfaces").

Each cutter is `cut(contract, files) -> iterable of window dicts` for one `traces.format`; it
sets `event` (the trace's own step name) and may set `action`. The dispatcher resolves the
contract's trace paths, maps events to target actions, checks every window against the contract
schema, and leaves out windows of unmapped events (counting them in the summary).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from evaluation.inputs.contracts import Contract
from evaluation.windows import (
    etcd,
    mutex,
    pgo,
    redisraft,
    ringbuffer,
    rwmutex,
    spin,
    spin_traces,
    stored,
    zookeeper,
)
from evaluation.windows.errors import WindowFormatError
from evaluation.windows.window import Window

# A cutter: the windows of some trace files, before the dispatcher maps and checks them (they
# may lack `action` and carry `_where`).
Cutter = Callable[[Contract, list[Path]], Iterable[dict[str, Any]]]

CUTTERS: dict[str, Cutter] = {
    "spin-windows": spin.cut,
    "asterinas-spin": spin_traces.cut,
    "pgo": pgo.cut,
    "etcd": etcd.cut,
    "redisraft": redisraft.cut,
    "asterinas-mutex": mutex.cut,
    "asterinas-rwmutex": rwmutex.cut,
    "asterinas-ringbuffer": ringbuffer.cut,
    "zookeeper-ndjson": zookeeper.cut,
}

# Contracts with `traces.source: project` name files relative to the project root (traces our own
# harnesses make and the project commits); the default `data` is relative to the data folder.
PROJECT_ROOT = Path(__file__).resolve().parents[2]

__all__ = [
    "CUTTERS",
    "CutResult",
    "Window",
    "WindowFormatError",
    "cut_windows",
    "cut_with_summary",
    "trace_base",
    "trace_files",
]

REQUIRED_KEYS = ("window_id", "trace_id", "event", "actor", "pre_state", "post_state")


@dataclass
class CutResult:
    windows: list[Window]
    files: list[Path]
    events: Counter[str] = field(default_factory=Counter)
    actions: Counter[str] = field(default_factory=Counter)
    unmapped: Counter[str] = field(default_factory=Counter)


def cutter_version(fmt: str) -> str:
    """`<format>@<VERSION of the cutter module>`: part of a trace corpus version."""
    module = sys.modules[CUTTERS[fmt].__module__]
    return f"{fmt}@{getattr(module, 'VERSION', '0')}"


def trace_base(contract: Contract, data_dir: Path | str) -> Path:
    """The folder the contract's trace paths are relative to."""
    if contract.traces is not None and contract.traces.source == "project":
        return PROJECT_ROOT
    return Path(data_dir)


def trace_files(contract: Contract, data_dir: Path | str) -> list[Path]:
    """The contract's trace paths under `trace_base`; a path may be a glob pattern."""
    base = trace_base(contract, data_dir)
    files: list[Path] = []
    for pattern in contract.traces.paths if contract.traces is not None else ():
        matched = stored.glob_logical(base, pattern)
        if not matched:
            raise WindowFormatError(f"{base / pattern}:0: no trace file matches")
        files.extend(matched)
    return files


def cut_windows(contract: Contract, data_dir: Path | str) -> list[Window]:
    return cut_with_summary(contract, data_dir).windows


def cut_with_summary(
    contract: Contract,
    data_dir: Path | str,
    sources: list[tuple[str, list[Path]]] | None = None,
) -> CutResult:
    """The windows of the contract's trace files under `data_dir`, or of `sources`: (format,
    files) pairs that a held-out set finds its own way (`windows/heldout.py`), each cut by its
    format's cutter. A window id may appear once across all of them."""
    if contract.traces is None:
        return CutResult(windows=[], files=[])
    if sources is None:
        sources = [(contract.traces.format, trace_files(contract, data_dir))]
    result = CutResult(windows=[], files=[path for _, files in sources for path in files])
    seen_ids: set[str] = set()
    for fmt, files in sources:
        _cut_into(result, seen_ids, contract, fmt, files)
    return result


def _cut_into(
    result: CutResult, seen_ids: set[str], contract: Contract, fmt: str, files: list[Path]
) -> None:
    cutter = CUTTERS.get(fmt)
    if cutter is None:
        raise WindowFormatError(f"{contract.slug}:0: no cutter for format {fmt!r}")
    for window in cutter(contract, files):
        where = _check(window, contract)
        result.events[window["event"]] += 1
        action = window.get("action") or contract.action_for_event(window["event"])
        if action is None:
            result.unmapped[window["event"]] += 1
            continue
        window["action"] = action
        if window["window_id"] in seen_ids:
            raise WindowFormatError(f"{where}: duplicate window_id {window['window_id']!r}")
        seen_ids.add(window["window_id"])
        result.actions[action] += 1
        # Checked by `_check`, its action set: a canonical window now.
        result.windows.append(cast(Window, window))


def _check(window: dict[str, Any], contract: Contract) -> str:
    where: str = window.pop("_where", f"{contract.slug}:?")
    missing = [k for k in REQUIRED_KEYS if k not in window]
    if missing:
        raise WindowFormatError(f"{where}: window lacks {', '.join(missing)}")
    for side in ("pre_state", "post_state"):
        unknown = sorted(set(window[side]) - set(contract.observed_variables()))
        if unknown:
            raise WindowFormatError(
                f"{where}: {side} has variable(s) {unknown} the contract does not observe"
            )
    action = window.get("action")
    if action is not None and action not in contract.actions:
        raise WindowFormatError(f"{where}: {action!r} is not a target action")
    return where
