"""The run directory of one call: a fresh directory under the system temp dir, deleted afterwards.

spec/      the given modules, written by us under validated names (never a `.class`)
lib/       copies of our library modules (`-DTLA-Library`), only `.tla`
scratch/   java.io.tmpdir, HOME and TLC's metadir; a size-capped tmpfs when root
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from evaluation.results import InfrastructureFailure
from evaluation.tla import tools
from evaluation.tla.sandbox.limits import SandboxError

# A TLA+ identifier: letters, digits and `_` with at least one letter (`1_mutex` is one).
MODULE_NAME = re.compile(r"^(?=[A-Za-z0-9_]*[A-Za-z])[A-Za-z0-9_]{1,64}$")
RUN_DIR_PREFIX = "tla-sbx-"
# A scratch area the machine filled is no verdict on the spec (the tool's own cap is a tmpfs of
# its own inside the run directory, or the watchdog's: those are the spec's).
MACHINE_FULL = (errno.ENOSPC, errno.EDQUOT)


def scratch_root() -> Path:
    """Where run directories go: $TMPDIR as given. Python's own choice would silently fall back
    to /tmp when $TMPDIR is full or unwritable at its first use, hiding the outage."""
    return Path(os.environ.get("TMPDIR") or tempfile.gettempdir())


def validate_module_name(name: str) -> str:
    if not isinstance(name, str) or not MODULE_NAME.match(name):
        raise SandboxError(f"invalid module name {name!r}: must be a TLA+ identifier")
    return name


def library_module_names() -> list[str]:
    return sorted(p.stem for p in tools.MODULES_DIR.glob("*.tla"))


def sweep_abandoned_run_dirs(
    older_than_seconds: float, now: float | None = None, root: Path | None = None
) -> list[Path]:
    """Delete run directories left by a killed worker (SIGKILL skips our own cleanup).

    Only directories older than any legitimate run can be are removed, so a sweep never races
    a live call; returns what was removed.
    """
    cutoff = (time.time() if now is None else now) - older_than_seconds
    removed = []
    for path in (root or scratch_root()).glob(f"{RUN_DIR_PREFIX}*"):
        try:
            if path.is_dir() and not path.is_symlink() and path.stat().st_mtime < cutoff:
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
        except FileNotFoundError:
            continue
    return removed


def prepare(modules: dict[str, str], root: str, cfg: str | None = None) -> Path:
    names = [validate_module_name(n) for n in modules]
    validate_module_name(root)
    if root not in modules:
        raise SandboxError(f"root module {root!r} is not among the given modules")
    clash = set(names) & set(library_module_names())
    if clash:
        raise SandboxError(f"module name(s) {sorted(clash)} are reserved for library modules")
    run_dir = None
    try:
        run_dir = Path(tempfile.mkdtemp(prefix=RUN_DIR_PREFIX, dir=scratch_root()))
        for sub in ("spec", "lib", "scratch"):
            (run_dir / sub).mkdir()
        for name, text in modules.items():
            (run_dir / "spec" / f"{name}.tla").write_text(text, encoding="utf-8")
        for lib in tools.MODULES_DIR.glob("*.tla"):
            shutil.copyfile(lib, run_dir / "lib" / lib.name)
        if cfg is not None:
            (run_dir / "spec" / f"{root}.cfg").write_text(cfg, encoding="utf-8")
    except OSError as exc:
        if run_dir is not None:
            shutil.rmtree(run_dir, ignore_errors=True)
        if exc.errno in MACHINE_FULL:
            raise InfrastructureFailure(
                f"the scratch area {scratch_root()} is full ({exc})"
            ) from exc
        raise
    return run_dir


@contextmanager
def run_directory(modules: dict[str, str], root: str, cfg: str | None) -> Iterator[Path]:
    """A prepared run directory, with `cfg` as `<root>.cfg` when given; removed however the
    call ends."""
    run_dir = prepare(modules, root, cfg)
    try:
        yield run_dir
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
