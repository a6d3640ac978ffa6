"""What the board declares about each cell: which runs count (the policy) and which published
table its reported cells come from. Named here once for the forms, the aggregate and the pages."""

from __future__ import annotations

from dataclasses import dataclass

from evaluation.surface import OFFICIAL_WEIGHTS
from leaderboard.shared import rounding

MEAN, BEST, FIRST = "mean", "best", "first"
DEFAULT_POLICY = MEAN
POLICIES = {
    MEAN: "mean of all approved verified runs of the model on the task",
    BEST: "best approved verified run of the model on the task (best of n)",
    FIRST: "first approved verified run of the model on the task",
}
REPORTED_NOTE = (
    "Reported cells are SysMoBench's published figures: the best of a number of runs the "
    "source does not state (n not published)."
)


@dataclass(frozen=True)
class PublishedTable:
    key: str
    title: str
    source: str
    weights: tuple[float, ...]
    differs: str
    # How the table rounded a mean over tasks (leaderboard.shared.rounding): the site's pipeline
    # wrote 4 decimals first, then 3; the paper's rounded once from the unrounded mean (Kimi
    # K2.5's P4 0.32546 is 0.325 there, where two steps give 0.326).
    mean_rounding: str = rounding.MEAN


SITE, PAPER = "site", "paper"
DEFAULT_TABLE = SITE
PUBLISHED_TABLES = {
    SITE: PublishedTable(
        key=SITE,
        title="sysmobench.com",
        source="paper_summary_repaired.csv, detail_repaired.csv",
        weights=tuple(OFFICIAL_WEIGHTS),
        differs="weights 0.15/0.15/0.35/0.35; P3 and P4 of a mechanically repaired copy of the "
        "spec where one was made",
    ),
    PAPER: PublishedTable(
        key=PAPER,
        title="the SysMoBench paper and SIGOPS article",
        source="paper_summary.csv, detail.csv",
        weights=(0.25, 0.25, 0.25, 0.25),
        differs="mean of the four phases (weights 0.25 each); every phase of the spec as "
        "generated, unrepaired",
        mean_rounding=rounding.CELL,
    ),
}
