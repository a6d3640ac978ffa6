"""The weighted aggregate: the one place a leaderboard number is computed.

Rules (docs/BENCHMARK_RULES.md §1):

- cell = w1·P1 + w2·P2 + w3·P3 + w4·P4 for the run that counts for (model, task); a phase with
  no result, a result without a score (skipped, error), or a result an earlier scorer stored
  with status `timeout` counts 0 (evaluation.scoring; scorers since 2.1 raise instead).
- the runs that count (the declared policy, `leaderboard/board/policy.py`): by default the mean
  over all approved verified finished runs of (model, task), cell by cell and phase by phase;
  `best` takes the best run (by the cell score under the weights in use; the newest wins a
  tie), `first` the earliest. `n` is how many verified runs the cell had. With no verified run
  the newest reported run counts; its n is not published (None).
- intervals and rank ranges: `leaderboard/board/uncertainty.py`.
- the published table (`?published=`): reported cells take the figures of that table (the
  site's, in the phase results; the paper's, in the run's fingerprint), and the board's weights
  default to that table's.
- a model's overall = mean of its cells over ALL tasks; a task with no run counts 0 and is shown
  as "not submitted". Per-phase means are taken the same way.
- N/A: a verified run of a task without trace data has conformance status "n/a". Such a phase
  counts 0 in the cell (docs/decisions/0016-cell-score-rule.md: renormalising let a one-step spec of
  a task without traces score a verified 1.0 from P1, P2 and P4 alone;
  `evaluation.scoring.cell_score`) and is left out of that phase's mean (the denominator counts only
  tasks where the phase applies; not-submitted tasks still count 0). Reported runs keep the
  published formula: their P3 values are published, and a reported phase is never treated as N/A.

Weights are a parameter, normalised to sum 1, so user-adjustable weights reuse this code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np
import pandas as pd

# The scorer, the models and the board share one definition of the weights and the cell rule;
# they are re-exported here because the board's callers think in board terms.
from evaluation.surface import (  # noqa: F401
    NOT_APPLICABLE,
    OFFICIAL_WEIGHTS,
    PHASES,
    TIMEOUT,
    cell_score,
    normalise_weights,
)
from leaderboard.board import uncertainty
from leaderboard.board.policy import (
    BEST,
    DEFAULT_POLICY,
    DEFAULT_TABLE,
    FIRST,
    MEAN,
    POLICIES,
    PUBLISHED_TABLES,
    SITE,
)
from leaderboard.models import Run
from leaderboard.models.run_queries import BoardPhaseRow, BoardRunRow

PHASE_LABELS = {"syntax": "P1", "runtime": "P2", "conformance": "P3", "invariant": "P4"}
FUNNEL_STAGES = ("submitted", "P1 = 1", "P2 > 0", "P3 > 0", "P4 > 0")


# Normalised: four floats summing to 1, in PHASES order.
Weights = tuple[float, ...]


class TaskColumn(TypedDict):
    """A task as the board's columns show it."""

    id: int
    slug: str
    name: str
    kind: str
    position: int


# A phase score counted as full: 1 up to the last bits a mean of ones can lose (a mean of n
# scores of 1.0 is exactly 1.0 in IEEE arithmetic, so this only forgives representation).
FULL = 1 - 1e-9


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as dicts by column name, with Python values (as `to_dict("records")`
    gives them: numpy scalars become int, float and bool; timestamps stay Timestamps). Built
    from each column's `tolist()`, which converts a column at once: `to_dict` boxes value by
    value, 0.3 s for a board of 11,000 cells against a few tens of milliseconds."""
    columns = [str(c) for c in frame.columns]
    values = [_column_values(frame[c]) for c in frame.columns]
    return [dict(zip(columns, row, strict=True)) for row in zip(*values, strict=True)]


def _column_values(column: pd.Series) -> list[Any]:
    values = column.tolist()
    if isinstance(column.dtype, np.dtype):
        return values
    # A nullable (extension) column's missing value is pd.NA; to_dict gives None.
    return [None if v is pd.NA else v for v in values]


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
    policy: str = DEFAULT_POLICY
    published: str = DEFAULT_TABLE
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

    @property
    def custom(self) -> bool:
        """Weights other than the published table's own (the page then shows Δ rank)."""
        return normalise_weights(self.weights) != normalise_weights(self.table_weights)

    @property
    def table_weights(self) -> Weights:
        return normalise_weights(PUBLISHED_TABLES[self.published].weights)

    def funnel(self) -> pd.DataFrame:
        """Per model, how many tasks survive each gated stage (an N/A phase lets a task through)."""
        return self._funnel

    def _compute_funnel(self) -> pd.DataFrame:
        cells = self.cells
        alive = pd.Series(True, index=cells.index)
        stages = {FUNNEL_STAGES[0]: alive.astype(int)}
        for stage, phase, passes in (
            (FUNNEL_STAGES[1], "syntax", lambda s: s >= 1.0 - 1e-9),
            (FUNNEL_STAGES[2], "runtime", lambda s: s > 0),
            (FUNNEL_STAGES[3], "conformance", lambda s: s > 0),
            (FUNNEL_STAGES[4], "invariant", lambda s: s > 0),
        ):
            na = cells[f"{phase}_status"] == NOT_APPLICABLE
            alive = alive & (na | passes(cells[phase].fillna(0.0)))
            stages[stage] = alive.astype(int)
        counts = pd.DataFrame(stages).groupby(cells.model_id).sum().reset_index()
        order = self.rows[["model_id", "name"]]
        return order.merge(counts, on="model_id", how="left").fillna(0)


def run_frame(
    run_rows: list[BoardRunRow], phase_rows: list[BoardPhaseRow], weights: Weights
) -> pd.DataFrame:
    """One row per run from the database's rows: its phase scores and statuses, scored."""
    runs = pd.DataFrame(
        run_rows, columns=["id", "model_id", "task_id", "provenance", "created_at"]
    ).rename(columns={"id": "run_id"})
    phases = pd.DataFrame(phase_rows, columns=["run_id", "phase", "status", "score"])
    scores = phases.pivot(index="run_id", columns="phase", values="score")
    statuses = phases.pivot(index="run_id", columns="phase", values="status")
    scores = scores.reindex(columns=list(PHASES))
    statuses = statuses.reindex(columns=list(PHASES)).add_suffix("_status")
    return scored(runs.join(scores, on="run_id").join(statuses, on="run_id"), weights)


def scored(frame: pd.DataFrame, weights: Weights) -> pd.DataFrame:
    """The runs' counted phase values (a missing score counts 0; a verified run's N/A phase is
    left out, NaN) and their cell score under `weights`, as columns of a copy of `frame` in run
    id order. The order is part of the result: a mean sums in row order, and its last bit would
    otherwise depend on the order the database returned the rows in."""
    frame = frame.sort_values("run_id", kind="stable").reset_index(drop=True)
    for phase in PHASES:
        na = (frame.provenance == "verified") & (frame[f"{phase}_status"] == NOT_APPLICABLE)
        frame[phase] = frame[phase].astype(float).fillna(0.0).where(~na)
    frame["overall"] = run_scores(frame, weights)
    return frame


def with_published_figures(
    frame: pd.DataFrame, published: str, figures: dict[int, dict[str, Any]]
) -> pd.DataFrame:
    """Reported runs with the chosen table's figures: the site's are the phase results; another
    table's are in the run's fingerprint (`figures`: run id -> {phase: score}), and a reported
    run without them leaves the board. `frame` holds raw scores (before `scored`)."""
    if published == SITE:
        return frame
    reported = frame.provenance != "verified"
    frame = frame[~reported | frame.run_id.isin(list(figures))].copy()
    mine = frame.provenance != "verified"
    ids = frame.run_id[mine]
    for phase in PHASES:
        values = [figures[int(run_id)].get(phase) for run_id in ids]
        frame.loc[mine, phase] = [float("nan") if v is None else v for v in values]
        frame.loc[mine, f"{phase}_status"] = ["skipped" if v is None else "ran" for v in values]
    return frame


def run_scores(frame: pd.DataFrame, weights: Weights) -> np.ndarray:
    """`cell_score` of every run of the frame at once, float for float: the same sums in the
    same order (a phase that counts 0 adds 0.0, and x + 0.0 is x), so a board of 100,000 runs
    is scored in milliseconds instead of a Python call per run."""
    normalised = normalise_weights(weights)
    total = np.zeros(len(frame))
    for phase, weight in zip(PHASES, normalised, strict=True):
        status = frame[f"{phase}_status"].to_numpy()
        # A timed-out phase of an old run, and an N/A one (docs/decisions/0016-cell-score-rule.md),
        # count 0.
        zero = (status == TIMEOUT) | (status == NOT_APPLICABLE)
        counted = np.where(zero, 0.0, frame[phase].fillna(0.0).to_numpy(float))
        total = total + weight * counted
    return total


def _newest_first(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["created_at", "run_id"], ascending=False)


def _verified_cells(verified: pd.DataFrame, policy: str) -> pd.DataFrame:
    """One row per (model, task) under the policy, with `n`, the number of runs it had."""
    keys = ["model_id", "task_id"]
    if policy == BEST:
        ordered = verified.sort_values(
            ["overall", "created_at", "run_id"], ascending=[False, False, False]
        )
    elif policy == FIRST:
        ordered = verified.sort_values(["created_at", "run_id"])
    else:
        ordered = _newest_first(verified)
    cells = ordered.drop_duplicates(keys).set_index(keys)
    if policy == MEAN:
        # The cell links to its newest run and shows that run's phase statuses; its numbers
        # are the means (a phase N/A in every run stays N/A).
        means = group_means(verified, keys, ["overall", *PHASES])
        for column in means.columns:
            cells[column] = means[column]
    cells["n"] = verified.groupby(keys).size().astype(float)
    return cells.reset_index()


def group_means(frame: pd.DataFrame, keys: list[str], columns: list[str]) -> pd.DataFrame:
    """Per group of `keys`, each column's mean over its non-NaN values (NaN when it has none),
    summed in run id order within the group alone. Not pandas' grouped mean: that compensates
    its sums differently with one group than with several, so a cell's last bit would depend
    on which other cells were computed beside it, and a cell refreshed alone would differ from
    the same cell in a full build."""
    ordered = frame.sort_values([*keys, "run_id"], kind="stable")
    if ordered.empty:
        return pd.DataFrame(
            columns=columns, index=pd.MultiIndex.from_arrays([[]] * len(keys), names=keys)
        )
    key_values = ordered[keys].to_numpy()
    starts = np.flatnonzero(np.r_[True, (key_values[1:] != key_values[:-1]).any(axis=1)])
    means = {}
    for column in columns:
        values = ordered[column].to_numpy(dtype=float)
        present = ~np.isnan(values)
        sums = np.add.reduceat(np.where(present, values, 0.0), starts)
        counts = np.add.reduceat(present.astype(int), starts)
        with np.errstate(divide="ignore", invalid="ignore"):
            means[column] = np.where(counts > 0, sums / counts, np.nan)
    index = pd.MultiIndex.from_frame(ordered[keys].iloc[starts])
    return pd.DataFrame(means, index=index)


def counted_cells(frame: pd.DataFrame, policy: str = DEFAULT_POLICY) -> pd.DataFrame:
    """The verified cells under the policy; the newest reported run where there is none."""
    frame = frame.assign(is_verified=frame.provenance == "verified")
    verified = _verified_cells(frame[frame.is_verified], policy)
    reported = _newest_first(frame[~frame.is_verified]).drop_duplicates(["model_id", "task_id"])
    covered = pd.MultiIndex.from_frame(verified[["model_id", "task_id"]])
    mine = pd.MultiIndex.from_frame(reported[["model_id", "task_id"]])
    reported = reported[~mine.isin(covered)].assign(n=float("nan"))
    cells = pd.concat([verified, reported], ignore_index=True)
    return cells.sort_values(["model_id", "task_id"]).reset_index(drop=True)


def strict_passes(cells: pd.DataFrame) -> pd.Series:
    """Per cell, whether the model fully passes the task (the strict secondary figure, as
    tlaps-bench and SWE-bench report a resolved share): P3 at 1 (every target action accepts
    every window; a task without trace data has P3 N/A, which does not stand in the way) and P4
    at 1 (every invariant holds; an N/A P4 checked nothing, so it is no pass). A cell is the
    mean of its runs, so it is at 1 only when every counted run is; a reported cell is read by
    its published figures, as everywhere on the board."""
    conformance, invariant = cells["conformance"], cells["invariant"]
    full_p3 = (conformance >= FULL) | conformance.isna()
    return (full_p3 & (invariant >= FULL)).astype(bool)


def model_rows(cells: pd.DataFrame, models: pd.DataFrame, n_tasks: int) -> pd.DataFrame:
    grouped = cells.groupby("model_id")
    rows = pd.DataFrame(index=pd.Index(cells.model_id.unique(), name="model_id"))
    rows["overall"] = grouped.overall.sum() / n_tasks
    for phase in PHASES:
        applicable = n_tasks - cells[phase].isna().groupby(cells.model_id).sum()
        rows[phase] = (grouped[phase].sum() / applicable).where(applicable > 0)
    rows["strict_passed"] = strict_passes(cells).groupby(cells.model_id).sum().astype(int)
    rows["strict"] = rows.strict_passed / n_tasks
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


def _effective_weights(cell: dict[str, Any], weights: Weights) -> dict[str, float]:
    """Each phase's share of a verified cell, for the phases a units-bootstrap may draw (ran,
    so neither timed out nor N/A, both of which count 0 and keep their weight)."""
    total = sum(weights)
    return {
        p: w / total
        for p, w in zip(PHASES, weights, strict=True)
        if total > 0 and cell[f"{p}_status"] == "ran"
    }


UnitsOf = Callable[[list[int]], dict[int, uncertainty.RunUnits]]


def units_from_database(run_ids: list[int]) -> dict[int, uncertainty.RunUnits]:
    """Run id -> its units. An action's windows are drawn by position, so its verdicts are kept
    as counts (passed first): which window failed does not change what a draw gives."""
    actions, invariants = Run.objects.board_unit_rows(run_ids)
    units: dict[int, uncertainty.RunUnits] = {}
    for a in actions:
        passed, total = a["action_results__passed"], a["action_results__total"]
        refused = bool((a["action_results__detail"] or {}).get("specificity_failure"))
        verdicts = [True] * passed + [False] * (total - passed)
        units.setdefault(a["run_id"], uncertainty.RunUnits()).actions.append((verdicts, refused))
    for i in invariants:
        credited = i["invariant_results__verdict"] == "holds"
        units.setdefault(i["run_id"], uncertainty.RunUnits()).invariants.append(credited)
    return units


def units_json(units: uncertainty.RunUnits) -> dict[str, Any]:
    """A run's units as the stored board keeps them: per action [passed, total, refused]."""
    return {
        "actions": [[sum(v), len(v), refused] for v, refused in units.actions],
        "invariants": list(units.invariants),
    }


def units_from_json(stored: dict[str, Any]) -> uncertainty.RunUnits:
    return uncertainty.RunUnits(
        actions=[
            ([True] * passed + [False] * (total - passed), bool(refused))
            for passed, total, refused in stored["actions"]
        ],
        invariants=[bool(i) for i in stored["invariants"]],
    )


def cell_samples(
    cells: pd.DataFrame, frame: pd.DataFrame, policy: str, weights: Weights, units_of: UnitsOf
) -> dict[tuple[int, int], Any]:
    """The bootstrap resamples of every verified cell that has an interval; the basis of each
    is written into `cells` (`ci_basis`)."""
    verified = frame[frame.provenance == "verified"].sort_values(["created_at", "run_id"])
    values = verified.groupby(["model_id", "task_id"]).overall.agg(list).to_dict()
    by_units = [c for c in records(cells) if c["is_verified"] and (c["n"] < 2 or policy == FIRST)]
    units = units_of([int(c["run_id"]) for c in by_units])
    samples: dict[tuple[int, int], Any] = {}
    bases: dict[tuple[int, int], str] = {}
    for c in records(cells[cells.is_verified]):
        key = (int(c["model_id"]), int(c["task_id"]))
        rng = uncertainty.generator(*key)
        if c["n"] >= 2 and policy != FIRST:
            samples[key], bases[key] = uncertainty.over_runs(values[key], policy, rng), "runs"
            continue
        mine = units.get(int(c["run_id"]), uncertainty.RunUnits())
        drawn = uncertainty.over_units(c["overall"], mine, _effective_weights(c, weights), rng)
        if drawn is not None:
            samples[key], bases[key] = drawn, "units"
    cells["ci_basis"] = [
        bases.get((int(m), int(t))) for m, t in zip(cells.model_id, cells.task_id, strict=True)
    ]
    return samples


def add_intervals(
    cells: pd.DataFrame, rows: pd.DataFrame, samples: dict[tuple[int, int], Any], n_tasks: int
) -> None:
    """Cell and overall intervals, rank ranges and ties, as columns of `cells` and `rows`."""
    cell_ci = uncertainty.intervals(
        [samples.get((int(m), int(t))) for m, t in zip(cells.model_id, cells.task_id, strict=True)]
    )
    cells["ci_low"] = [ci[0] if ci else None for ci in cell_ci]
    cells["ci_high"] = [ci[1] if ci else None for ci in cell_ci]
    per_model: dict[int, list[tuple[float, Any]]] = {}
    for m, t, value in zip(cells.model_id, cells.task_id, cells.overall, strict=True):
        per_model.setdefault(int(m), []).append((float(value), samples.get((int(m), int(t)))))
    overall_draws, bases = [], []
    for m in rows.model_id:
        mine = per_model.get(int(m), [])
        draws, basis = uncertainty.overall_draws(mine, n_tasks), uncertainty.CELLS
        if draws is None and mine:
            padded = [value for value, _ in mine] + [0.0] * (n_tasks - len(mine))
            draws, basis = uncertainty.over_tasks(padded, int(m)), uncertainty.TASKS
        overall_draws.append(draws)
        bases.append(basis if draws is not None else None)
    overall_ci = uncertainty.intervals(overall_draws)
    rows["overall_ci_basis"] = bases
    rows["overall_ci_low"] = [ci[0] if ci else None for ci in overall_ci]
    rows["overall_ci_high"] = [ci[1] if ci else None for ci in overall_ci]
    add_rank_ranges(rows)


def add_rank_ranges(rows: pd.DataFrame) -> None:
    """Rank ranges and ties from the overall intervals: they compare every model with every
    other, so they are computed for the whole board at once, never stored per model."""
    overall_ci = [
        None if low is None or low != low else (float(low), float(high))
        for low, high in zip(rows.overall_ci_low, rows.overall_ci_high, strict=True)
    ]
    ranges = uncertainty.rank_ranges(list(rows.overall), overall_ci)
    rows["rank_best"] = [best for best, _ in ranges]
    rows["rank_worst"] = [worst for _, worst in ranges]
    rows["tie"] = uncertainty.ties(ranges)


def check_choice(policy: str, published: str) -> None:
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; one of {', '.join(POLICIES)}")
    if published not in PUBLISHED_TABLES:
        raise ValueError(f"unknown table {published!r}; one of {', '.join(PUBLISHED_TABLES)}")


def table_weights(weights: Iterable[float | str] | None, published: str = DEFAULT_TABLE) -> Weights:
    """The weights in use: the given ones, else the published table's own."""
    return normalise_weights(PUBLISHED_TABLES[published].weights if weights is None else weights)
