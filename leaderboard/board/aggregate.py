"""The weighted aggregate: the one place a leaderboard number is computed.

Rules (docs/BENCHMARK_RULES.md §1):

- cell = w1·P1 + w2·P2 + w3·P3 + w4·P4 for the run that counts for (model, task); a phase with
  no result, a result without a score (skipped, error), or a result with status `timeout`
  counts 0 (evaluation.scoring.TIMEOUT_RULE: the same rule as `composite`).
- the run that counts: the best verified finished run (by the cell score under the weights in
  use; the newest wins a tie), otherwise the newest reported run.
- a model's overall = mean of its cells over ALL tasks; a task with no run counts 0 and is shown
  as "not submitted". Per-phase means are taken the same way.
- N/A: a verified run of a task without trace data has conformance status "n/a". Such a phase is
  left out of the cell (the other weights are renormalised to sum 1, so the cell stays on the
  0..1 scale and is neither rewarded nor punished for missing data) and out of that phase's
  mean (the denominator counts only tasks where the phase applies; not-submitted tasks still
  count 0). Reported runs keep the published formula: their P3 values are published, and a
  reported phase is never treated as N/A.

Weights are a parameter, normalised to sum 1, so user-adjustable weights reuse this code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypedDict

import pandas as pd
from django.core.cache import cache

# The scorer, the models and the board share one definition of the weights and the cell rule;
# they are re-exported here because the board's callers think in board terms.
from evaluation.surface import (  # noqa: F401
    NOT_APPLICABLE,
    OFFICIAL_WEIGHTS,
    PHASES,
    cell_score,
    normalise_weights,
)
from leaderboard.board.generation import generation
from leaderboard.board.memo import LocalMemo
from leaderboard.models import ModelUnderTest, Release, Run, Task
from leaderboard.querysets import BoardPhaseRow, BoardRunRow

PHASE_LABELS = {"syntax": "P1", "runtime": "P2", "conformance": "P3", "invariant": "P4"}
FUNNEL_STAGES = ("submitted", "P1 = 1", "P2 > 0", "P3 > 0", "P4 > 0")

_LOCAL_BOARDS = LocalMemo()
_CACHE_SECONDS = 600

# Normalised: four floats summing to 1, in PHASES order.
Weights = tuple[float, ...]


class TaskColumn(TypedDict):
    """A task as the board's columns show it."""

    id: int
    slug: str
    name: str
    kind: str
    position: int


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as dicts by column name. `into=dict` is pandas' default; spelled out, it
    types the keys as the board's (string) column names instead of any hashable."""
    return frame.to_dict("records", into=dict)


def parse_weights(text: str) -> Weights:
    """`"0.15,0.15,0.35,0.35"` -> normalised weights (the `?w=` query parameter)."""
    return normalise_weights(part.strip() for part in text.split(","))


def is_official(weights: Iterable[float | str]) -> bool:
    return normalise_weights(weights) == normalise_weights(OFFICIAL_WEIGHTS)


@dataclass
class Board:
    """The computed leaderboard: `rows` one per model (ranked), `cells` one per counted run."""

    weights: Weights
    tasks: list[TaskColumn]
    rows: pd.DataFrame
    cells: pd.DataFrame
    official_rank: dict[int, int] = field(default_factory=dict)
    # The cache key this board is stored under: what is derived from it can be cached alongside.
    key: str = ""
    # Both derived from `cells` once, in __post_init__.
    _cell_index: dict[tuple[int, int], dict[str, Any]] = field(init=False, repr=False)
    _funnel: pd.DataFrame = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # Pages look up every (model, task) cell; a dict keeps that off pandas' slow path.
        self._cell_index = {(int(c["model_id"]), int(c["task_id"])): c for c in records(self.cells)}
        self._funnel = self._compute_funnel()

    def cell(self, model_id: int, task_id: int) -> dict[str, Any] | None:
        return self._cell_index.get((int(model_id), int(task_id)))

    def funnel(self) -> pd.DataFrame:
        """Per model, how many tasks survive each gated stage (an N/A phase lets a task through)."""
        return self._funnel

    def _compute_funnel(self) -> pd.DataFrame:
        counts = []
        for model_id, group in self.cells.groupby("model_id"):
            alive = pd.Series(True, index=group.index)
            stages = [int(alive.sum())]
            for phase, passes in (
                ("syntax", lambda s: s >= 1.0 - 1e-9),
                ("runtime", lambda s: s > 0),
                ("conformance", lambda s: s > 0),
                ("invariant", lambda s: s > 0),
            ):
                na = group[f"{phase}_status"] == NOT_APPLICABLE
                alive &= na | passes(group[phase].fillna(0.0))
                stages.append(int(alive.sum()))
            counts.append([model_id, *stages])
        funnel = pd.DataFrame(counts, columns=["model_id", *FUNNEL_STAGES])
        order = self.rows[["model_id", "name"]]
        return order.merge(funnel, on="model_id", how="left").fillna(0)


def _run_frame(
    run_rows: list[BoardRunRow], phase_rows: list[BoardPhaseRow], weights: Weights
) -> pd.DataFrame:
    runs = pd.DataFrame(
        run_rows, columns=["id", "model_id", "task_id", "provenance", "created_at"]
    ).rename(columns={"id": "run_id"})
    phases = pd.DataFrame(phase_rows, columns=["run_id", "phase", "status", "score"])
    scores = phases.pivot(index="run_id", columns="phase", values="score")
    statuses = phases.pivot(index="run_id", columns="phase", values="status")
    scores = scores.reindex(columns=list(PHASES))
    statuses = statuses.reindex(columns=list(PHASES)).add_suffix("_status")
    frame = runs.join(scores, on="run_id").join(statuses, on="run_id")
    for phase in PHASES:
        na = (frame.provenance == "verified") & (frame[f"{phase}_status"] == NOT_APPLICABLE)
        frame[phase] = frame[phase].astype(float).fillna(0.0).where(~na)
    frame["overall"] = [
        cell_score(
            {p: row[p] for p in PHASES},
            {p: row[f"{p}_status"] for p in PHASES},
            row["provenance"],
            weights,
        )
        for row in records(frame)
    ]
    return frame


def _counted_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """Best verified run per (model, task), else the newest reported one."""
    frame = frame.assign(is_verified=frame.provenance == "verified")
    frame = frame.assign(rank_score=frame.overall.where(frame.is_verified, 0.0))
    frame = frame.sort_values(
        ["model_id", "task_id", "is_verified", "rank_score", "created_at", "run_id"],
        ascending=[True, True, False, False, False, False],
    )
    return frame.drop_duplicates(["model_id", "task_id"]).drop(columns=["rank_score"])


def _model_rows(cells: pd.DataFrame, models: pd.DataFrame, n_tasks: int) -> pd.DataFrame:
    grouped = cells.groupby("model_id")
    rows = pd.DataFrame(index=pd.Index(cells.model_id.unique(), name="model_id"))
    rows["overall"] = grouped.overall.sum() / n_tasks
    for phase in PHASES:
        na_count = grouped[phase].apply(lambda s: int(s.isna().sum()))
        applicable = n_tasks - na_count
        rows[phase] = (grouped[phase].sum() / applicable).where(applicable > 0)
    rows["submitted"] = grouped.size()
    rows["verified"] = grouped.is_verified.sum()
    rows["provenance"] = [
        "verified" if v == s else ("reported" if v == 0 else "mixed")
        for v, s in zip(rows.verified, rows.submitted, strict=True)
    ]
    rows = rows.reset_index().merge(models, on="model_id")
    rows = rows.sort_values(["overall", "name"], ascending=[False, True])
    rows["rank"] = rows.overall.round(9).rank(method="min", ascending=False).astype(int)
    return rows.reset_index(drop=True)


def compute_board(
    weights: Iterable[float | str] = OFFICIAL_WEIGHTS, release: Release | None = None
) -> Board:
    """Compute the board from the database (uncached); see get_board()."""
    normalised = normalise_weights(weights)
    tasks: list[TaskColumn] = list(Task.objects.values("id", "slug", "name", "kind", "position"))
    models = pd.DataFrame(
        list(ModelUnderTest.objects.values("id", "slug", "name", "organisation", "kind")),
        columns=["id", "slug", "name", "organisation", "kind"],
    ).rename(columns={"id": "model_id"})
    runs = Run.objects.all()
    frame = _run_frame(runs.board_rows(release), runs.board_phase_rows(release), normalised)
    cells = _counted_cells(frame).reset_index(drop=True)
    rows = _model_rows(cells, models, max(len(tasks), 1))
    return Board(weights=normalised, tasks=tasks, rows=rows, cells=cells)


def get_board(
    weights: Iterable[float | str] = OFFICIAL_WEIGHTS, release: Release | None = None
) -> Board:
    """The board under `weights`, cached; `official_rank` maps model id -> rank under the
    official weights so callers can show how a re-weighting moves each model."""
    normalised = normalise_weights(weights)
    # The stamp keeps per-process caches honest when the run finished in another process.
    stamp = Run.objects.board_stamp(release)
    parts = f"{generation()}:{stamp}:{normalised}:{release.name if release else ''}"
    key = "board:" + hashlib.sha256(parts.encode()).hexdigest()
    board: Board | None = _LOCAL_BOARDS.get(key) or cache.get(key)
    if board is None:
        board = compute_board(normalised, release)
        board.key = key
        official = board if is_official(normalised) else get_board(OFFICIAL_WEIGHTS, release)
        board.official_rank = dict(zip(official.rows.model_id, official.rows["rank"], strict=True))
        cache.set(key, board, _CACHE_SECONDS)
    _LOCAL_BOARDS.set(key, board)
    return board
