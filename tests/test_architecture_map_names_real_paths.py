"""The architecture map stays a map, and every path it names is real.

`docs/ARCHITECTURE.md` and each record in `docs/decisions/` name files in backticks and links; a
name that no longer exists is the first sign a document went stale, so each must exist. The map
stays short (at most 450 lines), and every `docs/decisions/NNNN-*.md` the repository cites exists,
so no comment points at a record that was renamed or never written. No Django, no TLC.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()
MAP = ROOT / "docs" / "ARCHITECTURE.md"
DECISIONS = ROOT / "docs" / "decisions"
MAX_MAP_LINES = 450

# What a path in a document may end with when it names a file without a folder.
FILE_SUFFIXES = (
    ".py", ".md", ".tla", ".yaml", ".yml", ".toml", ".json", ".jsonl", ".html", ".js", ".css",
    ".cfg", ".txt", ".sh", ".lock", ".ndjson",
)  # fmt: skip
SKIPPED_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache"}
PATH_CHARS = re.compile(r"^[A-Za-z0-9_.\-/]+$")
BACKTICKED = re.compile(r"`([^`\n]+)`")
LINKED = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
# Values spelled with a slash that are no paths (a phase's status).
NOT_PATHS = {"n/a"}
CITED_RECORD = re.compile(r"docs/decisions/\d{4}-[a-z0-9\-]+\.md")


def repository_files() -> set[str]:
    """Every file and folder under the root, as root-relative POSIX paths (folders end in /)."""
    found: set[str] = set()
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        rel = Path(folder).relative_to(ROOT).as_posix()
        prefix = "" if rel == "." else rel + "/"
        if prefix:
            found.add(prefix)
        found.update(prefix + name for name in files)
    return found


def path_like(token: str) -> bool:
    """A token a reader would take for a repository path: `tests/base.py`, `docs/decisions/`,
    `CHANGELOG.md`. Commands, URLs (`/runs/<id>/`), placeholders (`<task>`), globs, TLA+ and
    dotted Python names are not paths."""
    if token in NOT_PATHS or not PATH_CHARS.match(token) or token.startswith(("/", ".", "-")):
        return False
    if "/" in token:
        first = token.split("/", 1)[0]
        return "." not in first  # a host name (go.etcd.io/raft) is no folder of ours
    return token.endswith(FILE_SUFFIXES)


def exists(token: str, files: set[str]) -> bool:
    """The token names a repository path: exactly (root-relative), or as the tail of one (the map
    lists a package's files by name under its folder's row)."""
    if token in files or token.rstrip("/") + "/" in files:
        return True
    tail = "/" + token
    return any(path.endswith(tail) for path in files)


def named_paths(text: str) -> list[str]:
    return [t for t in BACKTICKED.findall(text) if path_like(t)]


def documents() -> list[Path]:
    return [MAP, *sorted(DECISIONS.glob("*.md"))]


def missing_paths(document: Path, files: set[str]) -> list[str]:
    text = document.read_text()
    missing = [t for t in named_paths(text) if not exists(t, files)]
    for link in LINKED.findall(text):
        if "://" in link or link.startswith("mailto:"):
            continue
        target = (document.parent / link).resolve()
        if not target.exists():
            missing.append(link)
    return missing


@pytest.fixture(scope="module")
def files() -> set[str]:
    return repository_files()


def test_the_map_is_short():
    lines = len(MAP.read_text().splitlines())
    assert lines <= MAX_MAP_LINES, (
        f"docs/ARCHITECTURE.md has {lines} lines (at most {MAX_MAP_LINES})"
    )


@pytest.mark.parametrize("document", documents(), ids=lambda p: p.name)
def test_every_path_a_document_names_exists(document, files):
    assert named_paths(document.read_text()) or document.name == "README.md"
    assert missing_paths(document, files) == []


def test_a_bogus_path_is_caught(files, tmp_path):
    """The check can fail: a document naming a file that is not there is reported."""
    bogus = tmp_path / "bogus.md"
    bogus.write_text("See `evaluation/no_such_module.py` and `docs/decisions/9999-nothing.md`.\n")
    assert missing_paths(bogus, files) == [
        "evaluation/no_such_module.py",
        "docs/decisions/9999-nothing.md",
    ]
    assert path_like("tests/base.py") and not path_like("/runs/<id>/")
    assert not path_like("go.etcd.io/raft/v3") and not path_like("python -m evaluation score")


def texts(files: set[str]):
    """The repository's text files that can cite a document (not this test, whose examples are
    bogus on purpose), with their text."""
    for path in sorted(files):
        if path == SELF or path.endswith("/"):
            continue
        if not (path.endswith(FILE_SUFFIXES) or path.startswith("bin/")):
            continue
        full = ROOT / path
        if full.stat().st_size > 1_000_000:
            continue
        try:
            yield path, full.read_text()
        except (UnicodeDecodeError, OSError):
            continue


def test_every_record_the_repository_cites_exists(files):
    cited: dict[str, set[str]] = {}
    for path, text in texts(files):
        for record in CITED_RECORD.findall(text):
            cited.setdefault(record, set()).add(path)
    assert cited, "no code cites a decision record"
    missing = {record: sorted(where) for record, where in cited.items() if record not in files}
    assert missing == {}


def test_the_decision_index_lists_every_record():
    index = (DECISIONS / "README.md").read_text()
    records = sorted(p.name for p in DECISIONS.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert records
    assert [r for r in records if f"({r})" not in index] == []
    assert [r for r in records if f"docs/decisions/{r}" not in MAP.read_text()] == []


def test_no_document_outside_the_repository_is_cited(files):
    """A fact the code relies on is stated in a repository document, never in a sibling
    checkout or a document the repository does not hold."""
    outside = re.compile(r"\.\./shared/|(?<![A-Z_])BENCHMARK\.md")
    # That test checks the shipped corpus reads no sibling checkout, so it names one.
    allowed = {"tests/test_corpus_ships_with_the_project.py"}
    offenders = [p for p, text in texts(files) if p not in allowed and outside.search(text)]
    assert offenders == []
