"""The windows of a held-out set: a folder in the layout of a SysMoBench data folder.

The folder is given to the instance (`HELDOUT_DATA_DIR`, `--heldout-dir`) and never served,
exported or committed (docs/decisions/0012-held-out-traces.md). Each contract's trace `paths`
are globbed under it, whatever the contract's `traces.source` (a task whose public traces our
harnesses commit in the project has its held-out ones in the folder too), and cut with the same
cutters as the public traces. A folder may hold only some tasks: a task none of whose paths
match has no held-out set (None), which is not an error.
"""

from __future__ import annotations

from pathlib import Path

from evaluation.inputs.contracts import Contract
from evaluation.windows import cut_with_summary, stored
from evaluation.windows.window import Window


def heldout_files(contract: Contract, folder: Path | str) -> list[Path]:
    """The held-out trace files of the contract's task under `folder` (may be none)."""
    base = Path(folder)
    if contract.traces is None or not base.is_dir():
        return []
    found: set[Path] = set()
    for pattern in contract.traces.paths:
        # Logical paths, as the public corpus: a trace may be stored as `<name>.gz`.
        found.update(stored.glob_logical(base, pattern))
    return sorted(found)


def cut_heldout(contract: Contract, folder: Path | str | None) -> list[Window] | None:
    """The held-out windows of the task, or None when the folder has no traces of it."""
    if folder is None:
        return None
    files = heldout_files(contract, folder)
    if not files:
        return None
    return cut_with_summary(contract, folder, files).windows
