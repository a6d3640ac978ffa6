"""AppCDS archives that cut SANY's and TLC's JVM start-up
(docs/decisions/0005-deterministic-tool-runs.md).

Class loading dominates a small check (~2 500 classes for TLC). A dynamic AppCDS archive made by
one training run on a trivial module of ours lets every later JVM map those classes instead.
It is purely a speed-up: a run with or without it produces the same output, so it is not part
of the scoring fingerprint, and anything that goes wrong means "no archive", never an error.

- Where: `SYSMOBENCH_CACHE_DIR`, else `$XDG_CACHE_HOME/sysmobench`, else `~/.cache/sysmobench`;
  `SYSMOBENCH_CACHE_DIR=off` disables archives. The path is resolved here, in the scorer's
  process: the sandboxed JVM has its own HOME, but sees the host file system read-only-by-use
  (it only maps the file), so an absolute path works inside the namespace too.
- Key: the jar's pinned sha256, path, size and mtime (the JVM itself rejects an archive whose
  class path changed), the `java -version` line, the JVM flags and the main class.
- Creation: the first user takes a non-blocking lock, trains into a unique temporary name and
  renames it into place (atomic), so concurrent first users never see a partial file; users that
  find the lock taken run without an archive meanwhile. A failed training leaves a `.failed`
  marker so that later processes do not pay for it again.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from evaluation.tla import tools

ENV_VAR = tools.CACHE_ENV
# The JVM's own CDS warnings (e.g. a stale archive) go to stdout, where the tools' output is
# parsed: silence them, an unusable archive simply means a slower start.
QUIET = ["-Xlog:cds=off", "-Xlog:cds+dynamic=off"]

Trainer = Callable[[Path], bool]


def cache_dir() -> Path | None:
    return tools.cache_dir()


def archive_name(main_class: str, flags: list[str]) -> str:
    jar = Path(tools.jar_path())
    stat = jar.stat()
    parts = [
        tools.JAR_SHA256,
        str(jar),
        str(stat.st_size),
        str(stat.st_mtime_ns),
        tools.java_version(),
        " ".join(flags),
        main_class,
    ]
    key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]
    return f"{main_class.rsplit('.', 1)[-1].lower()}-{key}.jsa"


def archive_for(main_class: str, flags: list[str], train: Trainer) -> Path | None:
    """The archive for `main_class`, created by `train(tmp_path)` on first use; None when
    archives are disabled, being created by someone else, or cannot be made here."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        path = directory / archive_name(main_class, flags)
        if _usable(path):
            return path
        if path.with_suffix(".failed").exists():
            return None
        directory.mkdir(parents=True, exist_ok=True)
        return _create(path, train)
    except (OSError, tools.ToolsError):
        return None


def _usable(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size > 0 and os.access(path, os.R_OK)
    except OSError:
        return False


def _create(path: Path, train: Trainer) -> Path | None:
    with open(path.with_suffix(".lock"), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        try:
            if _usable(path):  # made by whoever held the lock before us
                return path
            return _train_into(path, train)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _train_into(path: Path, train: Trainer) -> Path | None:
    fd, tmp_name = tempfile.mkstemp(prefix=path.stem + ".", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    tmp.unlink()  # the JVM creates the file itself
    try:
        if train(tmp) and _usable(tmp):
            os.chmod(tmp, 0o444)
            os.replace(tmp, path)
            return path
        path.with_suffix(".failed").write_text("training run failed; delete to retry\n")
        return None
    finally:
        tmp.unlink(missing_ok=True)
