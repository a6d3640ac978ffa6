"""The windows of a held-out set: a folder in the layout of a SysMoBench data folder.

The folder is given to the instance (`HELDOUT_DATA_DIR`, `--heldout-dir`) and never served,
exported or committed (docs/decisions/0012-held-out-traces.md). Each contract's trace `paths`
are globbed under it, whatever the contract's `traces.source` (a task whose public traces our
harnesses commit in the project has its held-out ones in the folder too), and cut with the same
cutters as the public traces. A folder may hold only some tasks: a task none of whose paths
match has no held-out set (None), which is not an error. Where the public traces come from
elsewhere, the contract names the layouts our harnesses write (`traces.heldout`), so what
`bin/make-traces` writes into the folder is read as it is.
"""

from __future__ import annotations

from pathlib import Path

from evaluation.inputs.contracts import Contract, TraceLayout
from evaluation.windows import cut_with_summary, stored
from evaluation.windows.window import Window


def heldout_files(contract: Contract, folder: Path | str) -> list[Path]:
    """The held-out trace files of the contract's task under `folder` (may be none)."""
    return [path for _, files in _by_layout(contract, folder) for path in files]


def cut_heldout(contract: Contract, folder: Path | str | None) -> list[Window] | None:
    """The held-out windows of the task, or None when the folder has no traces of it. Each
    layout the contract allows (`traces.layouts()`) is cut by its own format's cutter."""
    if folder is None:
        return None
    found = _by_layout(contract, folder)
    if not found:
        return None
    sources = [(layout.format, files) for layout, files in found]
    return cut_with_summary(contract, folder, sources).windows


def _by_layout(contract: Contract, folder: Path | str) -> list[tuple[TraceLayout, list[Path]]]:
    base = Path(folder)
    if contract.traces is None or not base.is_dir():
        return []
    out = []
    for layout in contract.traces.layouts():
        found: set[Path] = set()
        for pattern in layout.paths:
            # Logical paths, as the public corpus: a trace may be stored as `<name>.gz`.
            found.update(stored.glob_logical(base, pattern))
        if found:
            out.append((layout, sorted(found)))
    return out
