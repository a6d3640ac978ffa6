"""Trace files as the corpus stores them: plain, or gzip-compressed beside their logical name.

The shipped corpus (`corpus/`) keeps large traces as `<name>.gz`. Everything above this module
works with the *logical* path (without `.gz`), so window ids, trace ids and corpus versions do not
depend on how a file is stored: a trace re-imported from an uncompressed SysMoBench checkout
gets the same windows and the same content hash as the shipped one.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import IO

COMPRESSED = ".gz"


def stored_path(path: Path) -> Path:
    """The file that holds `path`'s content: itself, or `<path>.gz` when only that exists."""
    if path.is_file():
        return path
    packed = path.with_name(path.name + COMPRESSED)
    return packed if packed.is_file() else path


def exists(path: Path) -> bool:
    return stored_path(path).is_file()


def open_text(path: Path) -> IO[str]:
    stored = stored_path(path)
    if stored.name.endswith(COMPRESSED) and stored != path:
        return io.TextIOWrapper(gzip.open(stored, "rb"), encoding="utf-8")
    return open(stored, encoding="utf-8")


def read_bytes(path: Path) -> bytes:
    stored = stored_path(path)
    if stored.name.endswith(COMPRESSED) and stored != path:
        return gzip.decompress(stored.read_bytes())
    return stored.read_bytes()


def read_text(path: Path) -> str:
    return read_bytes(path).decode("utf-8")


def glob_logical(base: Path, pattern: str) -> list[Path]:
    """The logical paths of the files matching `pattern` under `base`, stored either way."""
    found = {p for p in base.glob(pattern) if p.is_file()}
    for packed in base.glob(pattern + COMPRESSED):
        if packed.is_file():
            found.add(packed.with_name(packed.name[: -len(COMPRESSED)]))
    return sorted(found)
