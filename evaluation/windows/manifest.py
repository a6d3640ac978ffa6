"""The corpus manifest: every data file under its logical name with the sha256 of its content.

    python -m evaluation.windows.manifest corpus > corpus/MANIFEST.json

The manifest is what a reader checks a shipped or downloaded corpus against; a task's own corpus
version (`leaderboard.tasks.importing.corpus_version`) is the figure releases record.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from evaluation.windows import stored

NOT_DATA = {"MANIFEST.json", "PROVENANCE.md"}


def build(folder: Path) -> dict[str, str]:
    files: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name in NOT_DATA:
            continue
        logical = path.with_name(path.name.removesuffix(stored.COMPRESSED))
        relative = logical.relative_to(folder).as_posix()
        files[relative] = hashlib.sha256(stored.read_bytes(logical)).hexdigest()
    return files


def main(argv: list[str]) -> int:
    folder = Path(argv[0] if argv else "corpus")
    json.dump({"files": build(folder)}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
