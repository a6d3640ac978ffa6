"""The board as a dataset in the layout the Hugging Face Hub reads: a dataset card (`README.md`
with YAML front matter naming the data file) beside `leaderboard.jsonl`, one line per model
with the figures leaderboard.json gives. Served one file at a time and as one zip, so that
`huggingface-cli upload <repo> <folder> --repo-type dataset` of the unzipped folder publishes it.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from typing import Any

import yaml
from django.core.serializers.json import DjangoJSONEncoder

from leaderboard.board.aggregate import OFFICIAL_WEIGHTS, PHASE_LABELS, PHASES, Board
from leaderboard.board.tables import export_record, leaderboard_rows
from leaderboard.models import Release

DATA_FILE = "leaderboard.jsonl"
CARD_FILE = "README.md"
# The licence of the figures SysMoBench published, which the board carries as reported entries.
LICENSE = "apache-2.0"


def jsonl_lines(board: Board) -> Iterator[str]:
    for row in leaderboard_rows(board):
        yield json.dumps(export_record(row), cls=DjangoJSONEncoder, sort_keys=False) + "\n"


def front_matter(release: Release | None) -> dict[str, Any]:
    return {
        "pretty_name": "SysMoBench Leaderboard",
        "license": LICENSE,
        "language": ["en"],
        "tags": ["tla+", "formal-methods", "leaderboard", "benchmark", "sysmobench"],
        "size_categories": ["n<1K"],
        "configs": [
            {
                "config_name": "default",
                "data_files": [{"split": "train", "path": DATA_FILE}],
            }
        ],
        # Not a Hub field: which board this is, so a copy says where it came from.
        "sysmobench_release": release.name if release else None,
    }


def card(board: Board, release: Release | None, site: str) -> str:
    """The dataset card: YAML front matter, then what a line holds."""
    header = yaml.safe_dump(front_matter(release), sort_keys=False, allow_unicode=True)
    weights = ", ".join(
        f"{PHASE_LABELS[p]} {p} {w:g}" for p, w in zip(PHASES, OFFICIAL_WEIGHTS, strict=True)
    )
    tasks = ", ".join(f"`{t['slug']}`" for t in board.tasks)
    which = f"release {release.name}" if release else "the runs scored before any release"
    return (
        f"---\n{header}---\n\n# SysMoBench Leaderboard\n\n"
        f"The rankings of {site} ({which}): AI models writing TLA+ models of real concurrent "
        "and distributed systems, scored with SANY and TLC under published task contracts.\n\n"
        f"`{DATA_FILE}` has one line per model, in rank order: `rank`, `model`, `slug`, "
        "`organisation`, `kind` (llm or agent), `provenance` (verified here, reported by "
        "SysMoBench, or mixed), `overall` with its 95% interval `overall_ci` and `rank_range`, "
        f"the phase means ({weights} in the overall), `strict` (the share of tasks fully passed: "
        "every trace window and every invariant) with `strict_passed`, and one column per task "
        f"({tasks}) with the task score, null where the model has no run (it counts 0).\n\n"
        "Scores are 0..1 as the site publishes them. The same figures are at "
        f"{site}/leaderboard.json.\n"
    )


def zip_bytes(board: Board, release: Release | None, site: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"sysmobench-leaderboard/{CARD_FILE}", card(board, release, site))
        archive.writestr(f"sysmobench-leaderboard/{DATA_FILE}", "".join(jsonl_lines(board)))
    return buffer.getvalue()
