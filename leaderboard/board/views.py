"""The read side: leaderboard, model and task pages, and leaderboard exports."""

from typing import Any

import pandas as pd
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render

from leaderboard.board import charts, tables
from leaderboard.board.aggregate import (
    FUNNEL_STAGES,
    OFFICIAL_WEIGHTS,
    PHASE_LABELS,
    PHASES,
    Board,
    get_board,
    is_official,
    records,
)
from leaderboard.board.forms import BoardQueryForm
from leaderboard.compare.overview import featured
from leaderboard.models import ModelUnderTest, Run, Task, TraceCorpus
from leaderboard.releases.views import board_release
from leaderboard.tasks.info import contract_info, render_markdown, trace_status
from leaderboard.web.csv_safe import safe_cell
from leaderboard.web.rounding import percent_text

RUNS_SHOWN = 50


def _board_query(request: HttpRequest) -> tuple[BoardQueryForm, Board, list[dict[str, Any]]]:
    """The board under the URL's weights and release, and its rows filtered and sorted as the
    URL says."""
    release = board_release(request)
    official = get_board(release=release)
    form = BoardQueryForm(
        request.GET,
        organisations=sorted(official.rows.organisation.unique()),
        task_slugs=[t["slug"] for t in official.tasks],
    )
    weights = form.value("w")
    board = official if is_official(weights) else get_board(weights, release)
    rows = tables.filter_rows(tables.leaderboard_rows(board), form.value("kind"), form.value("org"))
    return form, board, tables.sort_rows(rows, form.value("sort"))


def leaderboard(request: HttpRequest) -> HttpResponse:
    form, board, rows = _board_query(request)
    custom = not is_official(board.weights)
    funnel = board.funnel()
    shown = funnel.set_index("model_id").loc[[r["model_id"] for r in rows]].reset_index()
    funnel_rows = [{**f, "counts": [int(f[s]) for s in FUNNEL_STAGES]} for f in records(shown)]
    context = {
        "form": form,
        "rows": rows,
        "tasks": board.tasks,
        "headers": tables.column_headers(
            request.GET.dict(), form.value("sort"), board.tasks, custom
        ),
        "custom_weights": custom,
        "weights": list(zip([PHASE_LABELS[p] for p in PHASES], board.weights, strict=True)),
        "official_weights": ",".join(str(w) for w in OFFICIAL_WEIGHTS),
        "weights_text": ",".join(f"{w:g}" for w in board.weights),
        "funnel_stages": FUNNEL_STAGES,
        "funnel_rows": funnel_rows,
        "phase_chart": charts.phase_chart(rows),
        "funnel_chart": charts.funnel_chart(funnel_rows),
        "query": request.GET.urlencode(),
        "featured": featured(board if is_official(board.weights) else None),
    }
    return render(request, "leaderboard/board_leaderboard.html", context)


def _export_records(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    exported = []
    for r in rows:
        record = {
            "rank": r["rank"],
            "official_rank": r["official_rank"],
            "model": r["name"],
            "slug": r["slug"],
            "organisation": r["organisation"],
            "kind": r["kind"],
            "provenance": r["provenance"],
            "overall": r["overall_figure"],
        }
        # Published figures (leaderboard.web.rounding), so an export equals the page and the paper.
        record.update({p["phase"]: p["figure"] for p in r["phases"]})
        record.update({c["task"]: c.get("figure") for c in r["cells"]})
        exported.append(record)
    return exported


def leaderboard_export(request: HttpRequest, fmt: str) -> HttpResponse:
    _, board, rows = _board_query(request)
    exported = _export_records(rows)
    if fmt == "csv":
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="sysmobench-leaderboard.csv"'
        columns = list(exported[0]) if exported else ["rank", "model"]
        safe = [{key: safe_cell(value) for key, value in r.items()} for r in exported]
        response.write(pd.DataFrame(safe, columns=columns).to_csv(index=False))
        return response
    payload = {
        "weights": dict(zip(PHASES, board.weights, strict=True)),
        "official_weights": dict(zip(PHASES, OFFICIAL_WEIGHTS, strict=True)),
        "tasks": [{"slug": t["slug"], "name": t["name"], "kind": t["kind"]} for t in board.tasks],
        "note": (
            "Scores are 0..1, rounded as SysMoBench published them: task scores once to 3 "
            "decimals, means first to 4 and then to 3. A task with no run is null and counts 0."
        ),
        "models": [
            {
                **record,
                "runs": {
                    c["task"]: {"run_id": c["run_id"], "provenance": c["provenance"]}
                    for c in r["cells"]
                    if c["submitted"]
                },
            }
            for record, r in zip(exported, rows, strict=True)
        ],
    }
    return JsonResponse(payload, json_dumps_params={"indent": 1})


def model_detail(request: HttpRequest, slug: str) -> HttpResponse:
    model = get_object_or_404(ModelUnderTest.objects.visible_to(request.user), slug=slug)
    board = get_board()
    summary = tables.model_summary(board, model.pk)
    traced = frozenset(TraceCorpus.objects.values_list("task_id", flat=True))
    visible_runs = model.runs.visible_to(request.user)
    task_rows = tables.model_task_rows(board, model.pk, traced)
    context = {
        "model": model,
        "summary": summary,
        "task_rows": task_rows,
        "harness_note": any(row.get("harness_p3") for row in task_rows),
        # The history lists every run; these are the ones the board counts (one per task).
        "counted": {row["run_id"] for row in task_rows if row["submitted"]},
        "phase_labels": [f"{PHASE_LABELS[p]} {p}" for p in PHASES],
        "others": ModelUnderTest.objects.visible_to(request.user)
        .exclude(pk=model.pk)
        .values("slug", "name"),
        "runs": [
            (run, tables.run_url(run.pk), percent_text(run.overall))
            for run in visible_runs.for_board_page()[:RUNS_SHOWN]
        ],
        "runs_hidden": max(0, visible_runs.count() - RUNS_SHOWN),
        "can_submit": model.accepts_runs_from(request.user),
    }
    return render(request, "leaderboard/model_detail.html", context)


def task_list(request: HttpRequest) -> HttpResponse:
    # An aggregate drops Meta.ordering, hence the explicit order_by.
    tasks = (
        Task.objects.prefetch_related("corpora")
        .annotate(public_runs=Count("runs", filter=Q(runs__in=Run.objects.public())))
        .order_by("position", "slug")
    )
    context = {"tasks": [(task, trace_status(task), task.public_runs) for task in tasks]}
    return render(request, "leaderboard/task_list.html", context)


def task_detail(request: HttpRequest, slug: str) -> HttpResponse:
    task = get_object_or_404(Task, slug=slug)
    runs = Run.objects.visible_to(request.user).for_task(task).for_board_page()
    context = {
        "task": task,
        "description_html": render_markdown(task.description),
        "contract": contract_info(task.slug),
        "traces": trace_status(task),
        "runs": [(run, tables.run_url(run.pk), percent_text(run.overall)) for run in runs],
    }
    return render(request, "leaderboard/task_detail.html", context)
