"""Reading the scenario files of our Asterinas harness (harnesses/asterinas): one NDJSON file per
scenario, events in recording order with `seq` counting 0, 1, 2, ... A gap or reordering means a
damaged file, so it is an error rather than something to guess around.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.windows.errors import WindowFormatError
from evaluation.windows.ndjson import read_objects


def trace_id(path: Path) -> str:
    """`<folder>/<file stem>`, e.g. `mutex/trace_01`: unique across one corpus."""
    return f"{path.parent.name}/{path.stem}"


def events(path: Path, fields: dict[str, type]) -> Iterator[tuple[str, dict[str, Any]]]:
    """`(where, event)` per line, after checking `seq` and the listed fields' types."""
    for expected, (_, where, event) in enumerate(read_objects(path)):
        for key, kind in fields.items():
            value = event.get(key)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise WindowFormatError(f"{where}: {key} must be {kind.__name__}, got {value!r}")
        if event["seq"] != expected:
            raise WindowFormatError(f"{where}: seq {event['seq']} where {expected} was expected")
        yield where, event


def fail(where: str, message: str) -> None:
    raise WindowFormatError(f"{where}: {message}")


def expect(where: str, ok: bool, message: str) -> None:
    """`fail` unless `ok`: a cutter's check that the history it replays is possible."""
    if not ok:
        fail(where, message)


def window(
    where: str,
    tid: str,
    event: dict[str, Any],
    actor: str,
    pre: dict[str, Any],
    post: dict[str, Any],
) -> dict[str, Any]:
    return {
        "_where": where,
        "window_id": f"{tid}#{event['seq']}",
        "trace_id": tid,
        "event": event["action"],
        "actor": actor,
        "pre_state": pre,
        "post_state": post,
    }


def threads(contract: Contract) -> list[str]:
    """The pinned `Threads` constant (`{"0", "1", "2"}`) as a list of names."""
    text = contract.constants.get("Threads", "")
    return [part.strip().strip('"') for part in text.strip("{} ").split(",") if part.strip()]
