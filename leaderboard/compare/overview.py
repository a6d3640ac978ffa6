"""Side-by-side comparison of two models (over all tasks) or two runs (of one task).

Per-task cells come from leaderboard.board.aggregate, so a comparison always shows the same
numbers as the board. Per-action grids come from the conformance ActionResults of the runs
that count; reported runs carry only published figures, so they get a note, not a grid.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache
from django.http import QueryDict

from evaluation.surface import unstorable
from leaderboard.board.aggregate import NOT_APPLICABLE, PHASE_LABELS, PHASES, Board, records
from leaderboard.board.boards import get_board
from leaderboard.models import ActionResult, ModelUnderTest, Run
from leaderboard.models.run_queries import RunQuerySet, id_batches
from leaderboard.runs import pairs
from leaderboard.runs.paired import LEVEL, pooled, verdict
from leaderboard.shared.disclosure import tokens_text
from leaderboard.shared.params import parse_id
from leaderboard.shared.rounding import (
    CELL,
    MEAN,
    Score,
    difference,
    figure,
    percent,
    percent_text,
)


@dataclass
class Side:
    label: str
    # `name` is what narrow headers show (a model's short display name); `full` its title.
    name: str
    full: str = ""
    slug: str = ""


Visitor = User | AnonymousUser
AWAITING_REVIEW = "awaiting review"
# A board cell (leaderboard.board.aggregate.Board.cell), or a run's id and provenance.
Cell = dict[str, Any]


def compare_from_query(query: QueryDict, user: Visitor) -> dict[str, Any]:
    """The compare page's context for `?a=&b=` (models) or `?run_a=&run_b=` (runs), over what
    `user` may see: models compare by their board figures, runs only if visible to `user`."""
    context: dict[str, Any] = {
        "models": list(ModelUnderTest.objects.visible_to(user).values("slug", "name")),
        "query": {k: query.get(k, "") for k in ("a", "b", "run_a", "run_b")},
        "mode": None,
        "error": "",
        # What went wrong, as a code a script can branch on (the export's error shape).
        "error_code": "",
    }
    if query.get("run_a") or query.get("run_b"):
        context.update(_compare_runs(query.get("run_a", ""), query.get("run_b", ""), user))
    elif query.get("a") or query.get("b"):
        context.update(_compare_models(query.get("a", ""), query.get("b", ""), user))
    if not context["mode"]:
        context["suggestion"] = _top_two()
    return context


def _top_two() -> list[dict[str, Any]]:
    """The board's first two models: a one-click example on the empty compare page."""
    rows = get_board().rows.head(2)
    return records(rows[["slug", "name"]]) if len(rows) == 2 else []


def _compare_models(slug_a: str, slug_b: str, user: Visitor) -> dict[str, Any]:
    if unstorable(slug_a + slug_b):
        return {
            "error": "A model slug holds a character no slug has (NUL or a lone surrogate).",
            "error_code": "invalid_slug",
        }
    models = ModelUnderTest.objects.visible_to(user).filter(slug__in=[slug_a, slug_b])
    found = {m.slug: m for m in models}
    missing = [s or "(empty)" for s in (slug_a, slug_b) if s not in found]
    if missing:
        # No "pick below" here: the export answers with the same words, and has no pickers.
        return {"error": f"Unknown model: {', '.join(missing)}.", "error_code": "unknown_model"}
    a, b = found[slug_a], found[slug_b]
    board = get_board()
    phase_rows = _phase_rows(_model_means(board, a.pk), _model_means(board, b.pk), MEAN)
    tasks: list[dict[str, Any]] = []
    units: list[tuple[bool, bool]] = []
    neither = []
    cells = {t["id"]: (board.cell(a.pk, t["id"]), board.cell(b.pk, t["id"])) for t in board.tasks}
    data = pairs.load([c["run_id"] for pair in cells.values() for c in pair if c])
    tokens = _generation_tokens([c["run_id"] for pair in cells.values() for c in pair if c])
    # A published run of a cell the board has not yet reads "awaiting review", not "not
    # submitted" (its figures count only once approved, so none are shown).
    awaiting = Run.objects.awaiting_cells([a.pk, b.pk])
    for task in board.tasks:
        cell_a, cell_b = cells[task["id"]]
        waiting_a = None if cell_a else awaiting.get((a.pk, task["id"]))
        waiting_b = None if cell_b else awaiting.get((b.pk, task["id"]))
        if not (cell_a or cell_b or waiting_a or waiting_b):
            neither.append(task)
            continue
        grid = _grid(cell_a, cell_b, data)
        units.extend(grid["units"])
        tasks.append(
            {
                "task": task,
                "a": cell_a,
                "b": cell_b,
                "awaiting_a": waiting_a,
                "awaiting_b": waiting_b,
                "delta": _delta(_overall(cell_a), _overall(cell_b)),
                "phases": _mark_awaiting(
                    task_phases(_cell_scores(cell_a), _cell_scores(cell_b)), waiting_a, waiting_b
                ),
                "tokens_a": _tokens(cell_a, tokens),
                "tokens_b": _tokens(cell_b, tokens),
                "grid": grid,
                "detail": _detail(grid, cell_a, cell_b, data),
            }
        )
    return {
        "mode": "models",
        "a": Side("A", a.display_name, a.name, a.slug),
        "b": Side("B", b.display_name, b.name, b.slug),
        "model_a": a,
        "model_b": b,
        "phase_rows": phase_rows,
        "tasks": tasks,
        "neither": neither,
        "any_grid": any(not t["grid"]["note"] for t in tasks),
        **_tests(units, tasks),
        "chart": _chart(
            [t["task"]["slug"] for t in tasks],
            [percent(_overall(t["a"])) for t in tasks],
            [percent(_overall(t["b"])) for t in tasks],
            a.display_name,
            b.display_name,
            "Overall per task (×100)",
        ),
    }


def _compare_runs(id_a: str, id_b: str, user: Visitor) -> dict[str, Any]:
    pk_a, pk_b = parse_id(id_a), parse_id(id_b)
    visible = Run.objects.visible_to(user)
    ids = [pk for pk in (pk_a, pk_b) if pk is not None]
    runs = {r.pk: r for r in visible.select_related("model", "task").filter(pk__in=ids)}
    if pk_a in runs and not id_b:
        return {"partners": _partners(runs[pk_a], visible)}
    if pk_a not in runs or pk_b not in runs:
        return {
            "error": "Give two existing run numbers (run_a and run_b).",
            "error_code": "unknown_run",
        }
    run_a, run_b = runs[pk_a], runs[pk_b]
    if run_a.task_id != run_b.task_id:
        return {
            "error_code": "different_tasks",
            "error": f"Run {run_a.pk} is for {run_a.task.slug} and run {run_b.pk} for "
            f"{run_b.task.slug}: two runs are compared only on one task.",
        }
    scores_a, scores_b = _run_scores(run_a), _run_scores(run_b)
    data = pairs.load([run_a.pk, run_b.pk])
    cell_a = {"run_id": run_a.pk, "provenance": run_a.provenance}
    cell_b = {"run_id": run_b.pk, "provenance": run_b.provenance}
    grid = _grid(cell_a, cell_b, data)
    labels = [PHASE_LABELS[p] + " " + p for p in PHASES] + ["overall"]
    tokens = {run.pk: run.generation_tokens for run in (run_a, run_b)}
    tasks = [
        {
            "task": {"slug": run_a.task.slug, "name": run_a.task.name},
            "a": cell_a,
            "b": cell_b,
            "phases": task_phases(scores_a, scores_b),
            "tokens_a": _tokens(cell_a, tokens),
            "tokens_b": _tokens(cell_b, tokens),
            "grid": grid,
            "detail": _detail(grid, cell_a, cell_b, data),
        }
    ]
    return {
        "mode": "runs",
        "a": Side("A", f"run {run_a.pk} ({run_a.model.display_name})", run_a.model.name),
        "b": Side("B", f"run {run_b.pk} ({run_b.model.display_name})", run_b.model.name),
        "run_a": run_a,
        "run_b": run_b,
        "task": run_a.task,
        "phase_rows": _phase_rows(scores_a, scores_b, CELL),
        "tasks": tasks,
        "any_grid": not grid["note"],
        **_tests(grid["units"], tasks),
        "spec_diff": spec_diff(run_a.spec_text, run_b.spec_text, run_a.pk, run_b.pk),
        "specs_identical": bool(run_a.spec_text) and run_a.spec_text == run_b.spec_text,
        "chart": _chart(
            labels,
            [percent(scores_a.get(k)) for k in [*PHASES, "overall"]],
            [percent(scores_b.get(k)) for k in [*PHASES, "overall"]],
            f"run {run_a.pk}",
            f"run {run_b.pk}",
            "Phase scores (×100)",
        ),
    }


def _partners(run: Run, visible: RunQuerySet) -> dict[str, Any]:
    """Other runs of the same task to compare `run` with (of those `visible`), newest first."""
    others = visible.for_task(run.task).exclude(pk=run.pk).select_related("model")
    return {"run": run, "runs": list(others.order_by("-created_at", "-id")[:30])}


def spec_diff(text_a: str, text_b: str, id_a: int, id_b: int) -> list[dict[str, str]]:
    """A unified diff of two specs as lines with a kind (add, del, hunk, same) for colouring;
    empty when either run has no spec (reported runs)."""
    if not text_a or not text_b:
        return []
    lines = difflib.unified_diff(
        text_a.splitlines(), text_b.splitlines(), f"run {id_a}", f"run {id_b}", lineterm=""
    )
    kinds = {"+": "add", "-": "del", "@": "hunk"}
    return [{"text": line, "kind": kinds.get(line[:1], "same")} for line in lines]


def _model_means(board: Board, model_id: int) -> dict[str, float | None]:
    match = board.rows[board.rows.model_id == model_id]
    if match.empty:
        return {}
    row = records(match)[0]
    return {k: _number(row.get(k)) for k in [*PHASES, "overall"]}


def _run_scores(run: Run) -> dict[str, Any]:
    results = list(run.phase_results.all())
    scores: dict[str, Any] = {p.phase: p.score for p in results}
    scores.update({f"{p.phase}_status": p.status for p in results})
    scores["overall"] = run.overall
    return scores


def _phase_rows(a: dict[str, Any], b: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """Phase and overall rows; `kind` is MEAN for model means, CELL for two runs' own scores."""
    return [
        {
            "key": key,
            "label": PHASE_LABELS.get(key, "") + " " + key if key in PHASES else "Overall",
            "a_figure": figure(a.get(key), kind),
            "b_figure": figure(b.get(key), kind),
            "a": a.get(key),
            "b": b.get(key),
            "a_text": percent_text(a.get(key), kind),
            "b_text": percent_text(b.get(key), kind),
            "delta": _delta(a.get(key), b.get(key)),
        }
        for key in [*PHASES, "overall"]
    ]


def _passes(run_id: int, data: dict[str, Any]) -> dict[str, bool]:
    """{action: passes under zero tolerance} from the run's conformance phase."""
    rows = data["actions"].get((run_id, "conformance"), {})
    return {action: total > 0 and passed == total for action, (passed, total) in rows.items()}


def _detail(
    grid: dict[str, Any], cell_a: Cell | None, cell_b: Cell | None, data: dict[str, Any]
) -> dict[str, Any] | None:
    """The side-by-side block when both sides have per-action data, else None (the grid's
    note says why)."""
    if grid["note"] or cell_a is None or cell_b is None:
        return None
    return pairs.run_pair(cell_a["run_id"], cell_b["run_id"], data)


def _grid(cell_a: Cell | None, cell_b: Cell | None, data: dict[str, Any]) -> dict[str, Any]:
    """Actions passing in A only / B only / both / neither, or why there is no grid."""
    why = [_no_grid_reason(cell_a, "A", data), _no_grid_reason(cell_b, "B", data)]
    if any(why) or cell_a is None or cell_b is None:
        return {"note": " ".join(w for w in why if w), "units": []}
    passes_a, passes_b = _passes(cell_a["run_id"], data), _passes(cell_b["run_id"], data)
    names = sorted(set(passes_a) | set(passes_b))
    pairs = [(n, passes_a.get(n, False), passes_b.get(n, False)) for n in names]
    return {
        "note": "",
        "a_only": [n for n, pa, pb in pairs if pa and not pb],
        "b_only": [n for n, pa, pb in pairs if pb and not pa],
        "both": [n for n, pa, pb in pairs if pa and pb],
        "neither": [n for n, pa, pb in pairs if not pa and not pb],
        "units": [(pa, pb) for _, pa, pb in pairs],
    }


def _no_grid_reason(cell: Cell | None, side: str, data: dict[str, Any]) -> str:
    if not cell:
        return f"{side} has no run for this task."
    if cell["provenance"] == Run.Provenance.REPORTED:
        return f"{side}'s figures are reported by SysMoBench (no per-action data)."
    if not pairs.has_actions(cell["run_id"], data):
        return f"{side}'s run has no per-action conformance results (phase not reached or N/A)."
    return ""


def _tests(units: list[tuple[bool, bool]], tasks: list[dict[str, Any]]) -> dict[str, Any]:
    windows = windows_test(tasks)
    return {"paired": paired_note(units, windows), "windows_test": windows}


def paired_note(
    units: list[tuple[bool, bool]], windows: dict[str, Any] | None = None
) -> dict[str, Any]:
    """How many task×action units differ and in which direction, with the exact McNemar test
    and, below six differing units, the caution that no split could be significant.

    `headline` is the conclusion the page leads with. Where both sides have per-window
    verdicts it is the window test the per-action table prints (the pooled row, and each action
    it finds a side better on, under the same level and the same least number of discordant
    windows), so the headline never says "too few to tell" beside a row that tells; the unit
    counts stay as a description. Without window data it is the unit test."""
    a_better = sum(1 for pa, pb in units if pa and not pb)
    b_better = sum(1 for pa, pb in units if pb and not pa)
    test = verdict(a_better, b_better, "units")
    return {
        **_unit_fields(units, a_better, b_better, test),
        "headline": _headline(test, windows),
    }


def _headline(unit_test: dict[str, Any], windows: dict[str, Any] | None) -> dict[str, Any]:
    if not windows or not windows["pooled"]:
        return {"basis": "units", **unit_test, "significant_rows": []}
    rows = [r for r in windows["rows"] if _significant(r)]
    return {"basis": "windows", **windows["pooled"], "significant_rows": rows}


def _significant(test: dict[str, Any]) -> bool:
    return not test["caution"] and test["p_value"] is not None and test["p_value"] < LEVEL


def _unit_fields(
    units: list[tuple[bool, bool]], a_better: int, b_better: int, test: dict[str, Any]
) -> dict[str, Any]:
    return {
        "units": len(units),
        "differ": test["discordant"],
        "a_better": a_better,
        "b_better": b_better,
        "p_value": test["p_value"],
        "caution": test["caution"],
        "reading": test["reading"],
    }


def windows_test(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """Exact McNemar per task and action over the windows both counted runs checked, and over
    all of them pooled; tasks without per-window data on both sides are left out."""
    rows = [
        {"task": t["task"], **row}
        for t in tasks
        if t.get("detail")
        for row in t["detail"]["mcnemar"]
    ]
    return {"rows": rows, "pooled": pooled(rows) if rows else None}


def task_phases(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """One task's phases and task score for both sides: figures, page text and B − A."""
    return [
        {
            "key": key,
            "label": f"{PHASE_LABELS[key]} {key}" if key in PHASES else "task score",
            "a": figure(a.get(key)),
            "b": figure(b.get(key)),
            "a_text": _cell_text(a, key),
            "b_text": _cell_text(b, key),
            "delta": _delta(a.get(key), b.get(key)),
        }
        for key in [*PHASES, "overall"]
    ]


def _mark_awaiting(
    phases: list[dict[str, Any]], waiting_a: int | None, waiting_b: int | None
) -> list[dict[str, Any]]:
    for side, waiting in (("a", waiting_a), ("b", waiting_b)):
        if waiting:
            for row in phases:
                row[f"{side}_text"] = AWAITING_REVIEW
    return phases


def _cell_text(scores: dict[str, Any], key: str) -> str:
    if not scores:
        return "not submitted"
    if key in PHASES and scores.get(f"{key}_status") == NOT_APPLICABLE:
        return "n/a"
    return percent_text(scores.get(key), CELL)


def _cell_scores(cell: Cell | None) -> dict[str, Any]:
    """A board cell's phase scores, task score and statuses ({} for no run)."""
    if not cell:
        return {}
    scores: dict[str, Any] = {k: _number(cell.get(k)) for k in [*PHASES, "overall"]}
    scores.update({f"{p}_status": cell.get(f"{p}_status") for p in PHASES})
    return scores


def _generation_tokens(run_ids: list[int]) -> dict[int, int | None]:
    runs = Run.objects.filter(pk__in=run_ids).only("pk", "tokens_in", "tokens_out")
    return {run.pk: run.generation_tokens for run in runs}


def _tokens(cell: Cell | None, tokens: dict[int, int | None]) -> dict[str, Any]:
    count = tokens.get(int(cell["run_id"])) if cell else None
    return {"count": count, "text": tokens_text(count) or "–"}


def _chart(
    labels: list[str],
    values_a: list[float | None],
    values_b: list[float | None],
    name_a: str,
    name_b: str,
    title: str,
) -> dict[str, Any]:
    """Grouped bars as a plain plotly.js figure (building a plotly.py Figure costs ~50 ms)."""
    return {
        "data": [
            {
                "type": "bar",
                "name": name_a,
                "x": labels,
                "y": values_a,
                "marker": {"color": "#2456c8"},
            },
            {
                "type": "bar",
                "name": name_b,
                "x": labels,
                "y": values_b,
                "marker": {"color": "#e0892b"},
            },
        ],
        "layout": {
            "barmode": "group",
            "title": {"text": title, "font": {"size": 14}},
            "yaxis": {"range": [0, 100]},
            "height": 360,
            "margin": {"l": 40, "r": 10, "t": 50, "b": 80},
            "legend": {"orientation": "h", "y": -0.25},
        },
    }


def _overall(cell: Cell | None) -> float | None:
    return None if not cell else _number(cell.get("overall"))


def _number(value: Score) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def _delta(a: Score, b: Score) -> float | None:
    """B − A from the unrounded values (a difference of two rounded figures would round twice)."""
    return difference(a, b)


def featured(board: Board | None = None) -> dict[str, Any] | None:
    """The home page's featured comparison (see _featured), cached with the official board it
    comes from (pass it when the caller has it already)."""
    board = board or get_board()
    key = f"featured:{board.key}"
    found: dict[str, dict[str, Any] | None] | None = cache.get(key)
    if found is None:
        found = {"featured": _featured(board)}
        cache.set(key, found, 600)
    return found["featured"]


def _featured(board: Board) -> dict[str, Any] | None:
    """The two models with the most tasks where both have verified per-action conformance data
    that says something (board rank breaks ties), with one task's per-action window counts as a
    preview; None while no such pair exists.

    A run counts here only when its spec accepts at least one trace window: a run rejecting
    every window (the archive's 0/6 specs) tells a reader nothing side by side, and a pair of
    them was what the home page used to feature."""
    verified = board.cells[board.cells.provenance == "verified"]
    with_actions = _runs_with_conformance_actions([int(r) for r in verified.run_id])
    tasks_of: dict[int, dict[int, int]] = {}
    for cell in records(verified):
        if int(cell["run_id"]) in with_actions:
            tasks_of.setdefault(int(cell["model_id"]), {})[int(cell["task_id"])] = int(
                cell["run_id"]
            )
    rank = dict(zip(board.rows.model_id, board.rows["rank"], strict=True))
    best = _best_pair(tasks_of, rank)
    if best is None:
        return None
    a, b, shared = best
    names = {row["model_id"]: row for row in records(board.rows)}
    task = next(t for t in board.tasks if t["id"] == shared[0])
    run_a, run_b = tasks_of[a][task["id"]], tasks_of[b][task["id"]]
    preview = pairs.run_pair(run_a, run_b, pairs.load([run_a, run_b]))
    return {
        "a": names[a]["name"],
        "b": names[b]["name"],
        "url": f"?a={names[a]['slug']}&b={names[b]['slug']}",
        "shared_tasks": len(shared),
        "task": task,
        "actions": preview["actions"],
        "split_count": preview["split_count"],
        "runs_url": f"?run_a={run_a}&run_b={run_b}",
    }


def _runs_with_conformance_actions(run_ids: list[int]) -> set[int]:
    """The runs whose conformance phase accepted at least one window of some action."""
    found: set[int] = set()
    for batch in id_batches(run_ids):
        found.update(
            ActionResult.objects.filter(
                phase_result__run_id__in=batch, phase_result__phase="conformance", passed__gt=0
            )
            .values_list("phase_result__run_id", flat=True)
            .distinct()
        )
    return found


def _best_pair(
    tasks_of: dict[int, dict[int, int]], rank: dict[int, int]
) -> tuple[int, int, list[int]] | None:
    """The pair with the most shared tasks, then the best rank sum; among equals the first in
    rank order. Only the two best-ranked models of each set of tasks can be in it (either of
    the others could be replaced by one of those two, sharing as much at no worse a rank sum,
    in a pair that comes earlier), so the pairs are searched among those: two models per
    distinct set of tasks, where all pairs of 1,000 models took 0.65 s."""
    order = sorted(tasks_of, key=lambda m: (rank.get(m, 0), m))
    per_set: dict[frozenset[int], list[int]] = {}
    for model in order:
        kept = per_set.setdefault(frozenset(tasks_of[model]), [])
        if len(kept) < 2:
            kept.append(model)
    candidates = {m for kept in per_set.values() for m in kept}
    best, best_key = None, None
    for a, b in combinations([m for m in order if m in candidates], 2):
        shared = sorted(set(tasks_of[a]) & set(tasks_of[b]))
        key = (len(shared), -(rank.get(a, 0) + rank.get(b, 0)))
        if shared and (best_key is None or key > best_key):
            best, best_key = (a, b, shared), key
    return best
