"""The read side: leaderboard, model and task pages, and leaderboard exports."""

import json
from typing import Any

import pandas as pd
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.http import urlencode

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
from leaderboard.board.policy import BEST, DEFAULT_POLICY, DEFAULT_TABLE, PUBLISHED_TABLES
from leaderboard.compare.overview import featured
from leaderboard.models import ModelUnderTest, Release, Run, Task, TraceCorpus
from leaderboard.releases.views import board_release
from leaderboard.runs import disclosure
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
    weights, policy, published = form.value("w"), form.value("policy"), form.value("published")
    default = weights is None and policy == DEFAULT_POLICY and published == DEFAULT_TABLE
    # The default board is the one just read: no second look at the cache and the runs' stamp.
    board = official if default else get_board(weights, policy, published, release)
    rows = tables.filter_rows(tables.leaderboard_rows(board), form.value("kind"), form.value("org"))
    return form, board, tables.sort_rows(rows, form.value("sort"))


def leaderboard(request: HttpRequest) -> HttpResponse:
    form, board, rows = _board_query(request)
    custom = board.custom
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
        "official_weights": ",".join(f"{w:g}" for w in board.table_weights),
        "declared": tables.declaration(board),
        "switch": _switch_links(request),
        "weights_text": ",".join(f"{w:g}" for w in board.weights),
        "funnel_stages": FUNNEL_STAGES,
        "funnel_rows": funnel_rows,
        "phase_chart": charts.phase_chart(rows),
        "funnel_chart": charts.funnel_chart(funnel_rows),
        "query": request.GET.urlencode(),
        "featured": featured(board if _is_default(board) else None),
        "release": board_release(request) or Release.board_default(),
    }
    return render(request, "leaderboard/board_leaderboard.html", context)


def _switch_links(request: HttpRequest) -> dict[str, str]:
    """The board's query with one choice changed: `best` policy, or each published table."""

    def changed(**values: str) -> str:
        query: dict[str, str] = {k: str(v) for k, v in request.GET.items() if v and k not in values}
        return "?" + urlencode({**query, **values})

    return {"best": changed(policy=BEST)} | {t: changed(published=t) for t in PUBLISHED_TABLES}


def _is_default(board: Board) -> bool:
    return (
        is_official(board.weights)
        and board.policy == DEFAULT_POLICY
        and board.published == DEFAULT_TABLE
    )


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
            "overall_ci": r["overall_ci"],
            "overall_ci_basis": r["overall_ci_basis"],
            "rank_range": r["rank_range"],
            "tie": r["tie"],
        }
        # Published figures (leaderboard.web.rounding), so an export equals the page and the paper.
        record.update({p["phase"]: p["figure"] for p in r["phases"]})
        record.update({c["task"]: c.get("figure") for c in r["cells"]})
        exported.append(record)
    return exported


def leaderboard_export(request: HttpRequest, fmt: str) -> HttpResponse:
    form, board, rows = _board_query(request)
    exported = _export_records(rows)
    declared = tables.declaration(board)
    if fmt == "csv":
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="sysmobench-leaderboard.csv"'
        columns = list(exported[0]) if exported else ["rank", "model"]
        safe = [
            {key: safe_cell(_csv_value(value)) for key, value in _csv_record(r, row, board).items()}
            for r, row in zip(exported, rows, strict=True)
        ]
        columns = list(safe[0]) if safe else columns
        response.write(pd.DataFrame(safe, columns=columns).to_csv(index=False))
        return response
    payload = {
        "weights": dict(zip(PHASES, board.weights, strict=True)),
        "official_weights": dict(zip(PHASES, OFFICIAL_WEIGHTS, strict=True)),
        "policy": {"name": board.policy, "text": declared["policy"]},
        "published": declared["published"],
        "uncertainty": declared["uncertainty"],
        # A parameter that did not validate falls back to its default, as on the page, and
        # the reason is given here.
        "errors": {field: list(errors) for field, errors in form.errors.items()},
        "tasks": [{"slug": t["slug"], "name": t["name"], "kind": t["kind"]} for t in board.tasks],
        "note": (
            "Scores are 0..1, rounded as the chosen SysMoBench table published them: task "
            "scores once to 3 decimals; means first to 4 and then to 3 in the site's table, "
            "once to 3 in the paper's. A task with no run is null and counts 0."
        ),
        "models": [
            {
                **record,
                "runs": {
                    c["task"]: {
                        "run_id": c["run_id"],
                        "provenance": c["provenance"],
                        "n": c["n"],
                        "ci": c["ci"],
                        "ci_basis": c["ci_basis"],
                    }
                    for c in r["cells"]
                    if c["submitted"]
                },
            }
            for record, r in zip(exported, rows, strict=True)
        ],
    }
    return JsonResponse(payload, json_dumps_params={"indent": 1})


def _csv_record(record: dict[str, Any], row: dict[str, Any], board: Board) -> dict[str, Any]:
    """The export record with what the JSON nests under `runs` and at its top as columns: the
    policy and the table on every row, each task's n and interval beside its figure."""
    flat = {**record, "policy": board.policy, "published": board.published}
    for cell in row["cells"]:
        flat[f"{cell['task']}_n"] = cell.get("n")
        flat[f"{cell['task']}_ci"] = cell.get("ci")
    return flat


def _csv_value(value: Any) -> Any:
    """A list (an interval, a rank range) as JSON text, "[0.61, 0.74]"; None stays empty."""
    if isinstance(value, list | tuple):
        return json.dumps(list(value))
    return value


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
        "published_tables": tables.published_summaries(model.pk, summary),
        "task_rows": task_rows,
        "harness_note": any(row.get("harness_p3") for row in task_rows),
        # The history lists every run; these are the ones the board counts: each approved
        # verified run (the cell is their mean), or the reported run of a task without one.
        "counted": set(model.runs.on_board().verified().values_list("pk", flat=True))
        | {row["run_id"] for row in task_rows if row.get("provenance") == "reported"},
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
        "disclosures": disclosure.model_rows(model.runs.disclosed_on_model_page()),
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
