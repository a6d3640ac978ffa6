"""The stored board: one row per (scope, model, task) cell and one per (scope, model), kept up to
date when runs reach or leave the board, so that a board request reads a small table instead of
every run and phase result.

- A **scope** is the set of runs one board counts: a release's (its id), or 0 for the board
  before any release was approved (`RunQuerySet.in_scope`). A scope is built in full the first
  time a board of it is asked for; from then on only the models a change marked are rebuilt.
- A cell keeps its figures under the **default view** (mean policy, the site's published
  table, official weights) with their bootstrap interval, and the raw material of every other
  view: its runs' phase scores and statuses, the paper table's figures of its reported runs and
  the units of its first verified run. Another policy, table or set of weights is arithmetic
  on those (`boards.board_of_scope`), never a second read of the runs.
- A model's overall interval resamples all its cells together, so it is stored per model and
  recomputed with them. Rank ranges and ties compare every model: computed at read time.
- **Consistency**: changes mark (leaderboard/models/marks.py) in their own transaction; a
  refresh takes the board lock, reads the marks, then the runs, rebuilds the marked models in
  every built scope and deletes only the marks it read. A change committed after the refresh
  read the marks keeps its mark; a change it read marks for is in the runs it then reads.
  Refreshes are serialised by the lock, so an older refresh cannot overwrite a newer one.
- **Version**: each rebuild gives its scope a new version (nanoseconds: never reused, even
  after the tables are emptied), which is the cached board's key.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import pandas as pd
from django.db import transaction
from django.db.models import F

from leaderboard.board import aggregate
from leaderboard.board.memo import LocalMemo
from leaderboard.board.policy import MEAN, PAPER, SITE
from leaderboard.models import (
    BoardCell,
    BoardMark,
    BoardModelRow,
    BoardScope,
    ModelUnderTest,
    Release,
    Run,
    Task,
)
from leaderboard.models.run_queries import NO_RELEASE, BoardPhaseRow, BoardRunRow

# The row whose UPDATE is the board lock (a row lock on PostgreSQL, the write lock on SQLite).
LOCK_SCOPE = -1

CELL_COLUMNS = (
    "model_id", "task_id", "run_id", "provenance", "n", "overall",
    *aggregate.PHASES, *(f"{p}_status" for p in aggregate.PHASES),
    "ci_low", "ci_high", "ci_basis",
)  # fmt: skip


def scope_of(release: Release | None) -> int:
    """The scope a board of `release` counts (None: the board's default release)."""
    chosen = release or Release.board_default()
    return chosen.pk if chosen is not None else NO_RELEASE


def ensure(scope: int) -> int:
    """Bring `scope` up to date (take in pending marks; build it if it never was) and return
    its version. Two small queries when nothing is pending."""
    if BoardMark.objects.exists():
        refresh_marked()
    n_tasks = Task.objects.count()
    found = BoardScope.objects.filter(scope=scope).values_list("version", "n_tasks").first()
    if found is not None and found[1] == n_tasks:
        return int(found[0])
    with transaction.atomic():
        _lock()
        found = BoardScope.objects.filter(scope=scope).values_list("version", "n_tasks").first()
        if found is None or found[1] != Task.objects.count():
            return _build(scope, None)
        return int(found[0])


def refresh_marked() -> bool:
    """Take in every pending mark: rebuild the marked models (everything, for a mark without
    a model) in every built scope. False when there was none (another refresh took them: a
    transaction that marks several times schedules a refresh per mark)."""
    with transaction.atomic():
        _lock()
        marks = list(BoardMark.objects.values_list("id", "model_id"))
        if not marks:
            return False
        marked = [m for _, m in marks]
        models = None if None in marked else sorted({m for m in marked if m is not None})
        for scope in BoardScope.objects.exclude(scope=LOCK_SCOPE).values_list("scope", flat=True):
            _build(int(scope), models)
        BoardMark.objects.filter(id__in=[i for i, _ in marks]).delete()
    return True


def rebuild_all() -> list[int]:
    """Rebuild every built scope from the runs (the `rebuild_board` command); their ids."""
    with transaction.atomic():
        _lock()
        scopes = [
            int(s)
            for s in BoardScope.objects.exclude(scope=LOCK_SCOPE).values_list("scope", flat=True)
        ]
        for scope in scopes:
            _build(scope, None)
        BoardMark.objects.all().delete()
    return scopes


def drift() -> dict[int, list[str]]:
    """Scope -> how its stored cells differ from a build from the runs (empty when the
    incremental refreshes kept it exact). Pending marks are taken in first, as a reader would;
    the comparison build is rolled back (`rebuild_board --check`)."""
    refresh_marked()
    found: dict[int, list[str]] = {}
    with transaction.atomic():
        _lock()
        for scope in BoardScope.objects.exclude(scope=LOCK_SCOPE).values_list("scope", flat=True):
            before = _snapshot(int(scope))
            _build(int(scope), None)
            found[int(scope)] = _differences(before, _snapshot(int(scope)))
        transaction.set_rollback(True)
    return found


def _differences(
    before: dict[tuple[Any, ...], Any], after: dict[tuple[Any, ...], Any]
) -> list[str]:
    keys = sorted(set(before) | set(after), key=str)
    return [
        f"{' '.join(map(str, key))}: stored {before.get(key)!r}, from the runs {after.get(key)!r}"
        for key in keys
        if before.get(key) != after.get(key)
    ]


def _snapshot(scope: int) -> dict[tuple[Any, ...], Any]:
    cells = BoardCell.objects.filter(scope=scope).values_list(*CELL_COLUMNS, "runs", "first_units")
    rows = BoardModelRow.objects.filter(scope=scope).values_list(
        "model_id", "ci_low", "ci_high", "ci_basis"
    )
    found: dict[tuple[Any, ...], Any] = {
        ("cell of model", c[0], "task", c[1]): c[2:] for c in cells
    }
    found.update({("overall interval of model", r[0]): r[1:] for r in rows})
    return found


def _lock() -> None:
    if not BoardScope.objects.filter(scope=LOCK_SCOPE).update(version=F("version") + 1):
        BoardScope.objects.get_or_create(scope=LOCK_SCOPE)
        BoardScope.objects.filter(scope=LOCK_SCOPE).update(version=F("version") + 1)


# --- building -------------------------------------------------------------------------------


def _build(scope: int, model_ids: list[int] | None) -> int:
    """Recompute the cells and model rows of `model_ids` (None: all) in `scope`; its version."""
    runs = Run.objects.countable().in_scope(scope)
    if model_ids is not None:
        runs = runs.filter(model_id__in=model_ids)
    run_rows, phase_rows = runs.board_rows(), runs.board_phase_rows()
    tasks = list(Task.objects.values("id", "slug", "name", "kind", "position"))
    n_tasks = max(len(tasks), 1)
    official = aggregate.table_weights(None, SITE)
    frame = aggregate.run_frame(run_rows, phase_rows, official)
    cells = aggregate.counted_cells(frame, MEAN)
    models = pd.DataFrame({"model_id": cells.model_id.unique()}).assign(name="")
    rows = aggregate.model_rows(cells, models, n_tasks)
    first = _first_verified(frame)
    units = aggregate.units_from_database(list(first.values()))
    samples = aggregate.cell_samples(cells, frame, MEAN, official, lambda ids: units)
    aggregate.add_intervals(cells, rows, samples, n_tasks)
    stale_cells = BoardCell.objects.filter(scope=scope)
    stale_rows = BoardModelRow.objects.filter(scope=scope)
    if model_ids is not None:
        stale_cells = stale_cells.filter(model_id__in=model_ids)
        stale_rows = stale_rows.filter(model_id__in=model_ids)
    stale_cells.delete()
    stale_rows.delete()
    records = _run_records(run_rows, phase_rows, runs)
    BoardCell.objects.bulk_create(
        (_cell(scope, c, records, first, units) for c in aggregate.records(cells)),
        batch_size=500,
    )
    BoardModelRow.objects.bulk_create(
        (
            BoardModelRow(
                scope=scope,
                model_id=int(r["model_id"]),
                ci_low=_number(r["overall_ci_low"]),
                ci_high=_number(r["overall_ci_high"]),
                ci_basis=_text(r["overall_ci_basis"]),
            )
            for r in aggregate.records(rows)
        ),
        batch_size=500,
    )
    version = time.time_ns()
    BoardScope.objects.update_or_create(
        scope=scope, defaults={"version": version, "n_tasks": len(tasks)}
    )
    return version


def _first_verified(frame: pd.DataFrame) -> dict[tuple[int, int], int]:
    """(model, task) -> its earliest verified run: the one run a units-bootstrap ever draws
    (the only run of a one-run cell, or the cell under the "first" policy)."""
    verified = frame[frame.provenance == "verified"].sort_values(["created_at", "run_id"])
    firsts = verified.drop_duplicates(["model_id", "task_id"])
    return {
        (int(m), int(t)): int(r)
        for m, t, r in zip(firsts.model_id, firsts.task_id, firsts.run_id, strict=True)
    }


def _run_records(
    run_rows: list[BoardRunRow], phase_rows: list[BoardPhaseRow], runs: Any
) -> dict[tuple[int, int], list[list[Any]]]:
    """(model, task) -> one compact record per run on the board: [id, created (µs), provenance,
    {phase: [status, score]}, the paper table's {phase: score} or null]."""
    phases: dict[int, dict[str, list[Any]]] = {}
    for p in phase_rows:
        phases.setdefault(p["run_id"], {})[p["phase"]] = [p["status"], p["score"]]
    paper = runs.board_published_figures(PAPER)
    grouped: dict[tuple[int, int], list[list[Any]]] = {}
    for r in run_rows:
        created = int(r["created_at"].timestamp() * 1_000_000)
        record = [r["id"], created, r["provenance"], phases.get(r["id"], {}), paper.get(r["id"])]
        grouped.setdefault((r["model_id"], r["task_id"]), []).append(record)
    return grouped


def _cell(
    scope: int,
    c: dict[str, Any],
    records: dict[tuple[int, int], list[list[Any]]],
    first: dict[tuple[int, int], int],
    units: dict[int, Any],
) -> BoardCell:
    key = (int(c["model_id"]), int(c["task_id"]))
    first_run = first.get(key)
    first_units = units.get(first_run) if first_run is not None else None
    return BoardCell(
        scope=scope,
        model_id=key[0],
        task_id=key[1],
        run_id=int(c["run_id"]),
        provenance=c["provenance"],
        n=_number(c["n"]),
        overall=float(c["overall"]),
        **{p: _number(c[p]) for p in aggregate.PHASES},
        **{f"{p}_status": _text(c[f"{p}_status"]) for p in aggregate.PHASES},
        ci_low=_number(c["ci_low"]),
        ci_high=_number(c["ci_high"]),
        ci_basis=_text(c["ci_basis"]),
        runs=records.get(key, []),
        first_units=None
        if first_units is None
        else {"run_id": first_run, **aggregate.units_json(first_units)},
    )


def _number(value: Any) -> float | None:
    return None if value is None or value != value else float(value)


def _text(value: Any) -> str:
    # Stored as "" for "none" (Django's rule for text columns); read back as None.
    return "" if value is None or value != value else str(value)


# --- reading --------------------------------------------------------------------------------


def default_cells(scope: int) -> pd.DataFrame:
    """The stored cells of `scope` under the default view, as the board's cells frame."""
    values = BoardCell.objects.filter(scope=scope).values_list(*CELL_COLUMNS)
    cells = pd.DataFrame(list(values), columns=list(CELL_COLUMNS))
    # As the rules give them: a phase without a result has a NaN status, a cell without an
    # interval a None basis.
    for phase in aggregate.PHASES:
        status = cells[f"{phase}_status"]
        cells[f"{phase}_status"] = status.where(status != "", float("nan"))
    cells["ci_basis"] = _nones(cells.ci_basis)
    for phase in aggregate.PHASES:
        cells[phase] = cells[phase].astype(float)
    cells["n"] = cells["n"].astype(float)
    cells["is_verified"] = cells.provenance == "verified"
    return cells.sort_values(["model_id", "task_id"]).reset_index(drop=True)


def overall_intervals(scope: int) -> pd.DataFrame:
    values = BoardModelRow.objects.filter(scope=scope).values_list(
        "model_id", "ci_low", "ci_high", "ci_basis"
    )
    rows = pd.DataFrame(
        list(values), columns=["model_id", "overall_ci_low", "overall_ci_high", "overall_ci_basis"]
    )
    rows["overall_ci_basis"] = _nones(rows.overall_ci_basis)
    return rows


def stored_runs(scope: int) -> StoredRuns:
    """What the runs of `scope` gave the stored cells, for another view of them: one row per
    run with its raw phase scores and statuses (as `aggregate.run_frame` has them before
    scoring), run id -> the paper table's figures, run id -> units of the first runs."""
    columns: dict[str, list[Any]] = {
        name: [] for name in ("run_id", "model_id", "task_id", "provenance", "created_at")
    }
    for phase in aggregate.PHASES:
        columns[phase], columns[f"{phase}_status"] = [], []
    paper: dict[int, dict[str, Any]] = {}
    units: dict[int, Any] = {}
    stored = BoardCell.objects.filter(scope=scope).values_list(
        "model_id", "task_id", "runs", "first_units"
    )
    nothing = (None, None)
    for model_id, task_id, runs, first_units in stored:
        for run_id, created, provenance, phases, figures in runs:
            columns["run_id"].append(run_id)
            columns["model_id"].append(model_id)
            columns["task_id"].append(task_id)
            columns["provenance"].append(provenance)
            columns["created_at"].append(created)
            for phase in aggregate.PHASES:
                status, score = phases.get(phase, nothing)
                columns[f"{phase}_status"].append(status)
                columns[phase].append(score)
            if figures is not None:
                paper[run_id] = figures
        if first_units is not None:
            units[int(first_units["run_id"])] = aggregate.units_from_json(first_units)
    frame = pd.DataFrame(columns)
    frame["created_at"] = pd.to_datetime(frame.created_at, unit="us", utc=True)
    for phase in aggregate.PHASES:
        frame[phase] = frame[phase].astype(float)
        status = frame[f"{phase}_status"]
        frame[f"{phase}_status"] = status.where(status.notna(), float("nan"))
    return frame, paper, units


# The decoded runs of the last scope versions read: decoding every cell's run records is most of
# a board under a visitor's own weights (0.6 s of 1.8 s at 100 models × 11 tasks × 10 runs), and
# it does not depend on the weights. The version is in the key: a changed scope is decoded anew.
_STORED_RUNS = LocalMemo(2)
StoredRuns = tuple[pd.DataFrame, dict[int, dict[str, Any]], dict[int, Any]]


def stored_runs_at(scope: int, version: int) -> StoredRuns:
    """`stored_runs(scope)` as of the scope's `version` (from `ensure`), decoded once per
    process. Shared between boards: callers copy before they change any of it (`scored`
    does)."""
    found: StoredRuns | None = _STORED_RUNS.get((scope, version))
    if found is None:
        found = stored_runs(scope)
        _STORED_RUNS.set((scope, version), found)
    return found


def forget_stored_runs() -> None:
    _STORED_RUNS.clear()


def _nones(texts: pd.Series) -> list[str | None]:
    return [text or None for text in texts]


def models_frame(model_ids: Iterable[int] | None = None) -> pd.DataFrame:
    models = ModelUnderTest.objects.all()
    if model_ids is not None:
        models = models.filter(pk__in=list(model_ids))
    return pd.DataFrame(
        list(models.values("id", "slug", "name", "organisation", "kind")),
        columns=["id", "slug", "name", "organisation", "kind"],
    ).rename(columns={"id": "model_id"})
