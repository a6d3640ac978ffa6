"""The read side: leaderboard, model and task pages, and leaderboard exports."""

import csv
import io
import json
from collections.abc import Iterable, Iterator
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.http import urlencode

from leaderboard.board import charts, tables
from leaderboard.board.aggregate import (
    FUNNEL_STAGES,
    OFFICIAL_WEIGHTS,
    PHASE_LABELS,
    PHASES,
    Board,
    is_official,
)
from leaderboard.board.boards import get_board
from leaderboard.board.forms import BoardQueryForm
from leaderboard.board.policy import BEST, DEFAULT_POLICY, DEFAULT_TABLE, PUBLISHED_TABLES
from leaderboard.compare.overview import featured
from leaderboard.models import ModelUnderTest, Release, Run, Task, TraceCorpus
from leaderboard.releases.views import board_release
from leaderboard.shared import disclosure, paging
from leaderboard.shared.csv_safe import safe_cell
from leaderboard.shared.ratelimit import Limited, client_ip, hit, too_many_requests
from leaderboard.shared.rounding import percent_text
from leaderboard.tasks.info import contract_info, render_markdown, trace_status

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
    board = (
        official
        if default
        else get_board(
            weights, policy, published, release, before_computing=lambda: count_costly_read(request)
        )
    )
    rows = tables.filter_rows(tables.leaderboard_rows(board), form.value("kind"), form.value("org"))
    return form, board, tables.sort_rows(rows, form.value("sort"))


def count_costly_read(request: HttpRequest) -> None:
    """A board under the visitor's own weights is computed for them: count it against their
    address's rate (raises Limited)."""
    hit("board", client_ip(request), settings.RATE_LIMIT_CUSTOM_BOARDS_PER_IP)


def leaderboard(request: HttpRequest) -> HttpResponse:
    try:
        return _leaderboard(request)
    except Limited as limited:
        return too_many_requests(request, limited)


def _leaderboard(request: HttpRequest) -> HttpResponse:
    form, board, ranked = _board_query(request)
    # Ranks and rank ranges are the full board's; only the rendering is one page of it.
    page = paging.window(ranked, form.value("page"), request.GET, paging.MODELS_PER_PAGE)
    rows = tables.page_html(page.items, board)
    custom = board.custom
    funnel_rows = tables.funnel_rows(board, rows)
    context = {
        "form": form,
        "rows": rows,
        "tasks": board.tasks,
        "page": page,
        # A new sort starts again at the first page.
        "headers": tables.column_headers(
            {k: str(v) for k, v in request.GET.items() if k != "page"},
            form.value("sort"),
            board.tasks,
            custom,
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


def leaderboard_export(request: HttpRequest, fmt: str) -> HttpResponse | StreamingHttpResponse:
    """One page of the board (`?page=`, the first by default), or with `?page=all` every row,
    streamed row by row so that a large board's download starts at once."""
    try:
        form, board, rows = _board_query(request)
    except Limited as limited:
        # A 429 that reads as the format asked for (the API's shape for JSON).
        return too_many_requests(request, limited, as_json=fmt == "json")
    number = form.value("page")
    page = paging.window(rows, number, request.GET, paging.MODELS_PER_PAGE) if number else None
    shown = rows if page is None else page.items
    if fmt == "csv":
        lines = _csv_lines(shown, board)
        if page is None:
            response: HttpResponse | StreamingHttpResponse = StreamingHttpResponse(
                lines, content_type="text/csv; charset=utf-8"
            )
        else:
            response = HttpResponse("".join(lines), content_type="text/csv; charset=utf-8")
            response["X-Total-Count"] = str(page.total)
            links = [(page.previous_url, "prev"), (page.next_url, "next")]
            link_text = [f'<{request.path}{url}>; rel="{rel}"' for url, rel in links if url]
            if link_text:
                response["Link"] = ", ".join(link_text)
        response["Content-Disposition"] = 'attachment; filename="sysmobench-leaderboard.csv"'
        return response
    head = _json_head(request, form, board, rows, page)
    models = (_json_model(r) for r in shown)
    if page is None:
        return StreamingHttpResponse(_json_stream(head, models), content_type="application/json")
    return JsonResponse({**head, "models": list(models)}, json_dumps_params={"indent": 1})


def _json_head(
    request: HttpRequest,
    form: BoardQueryForm,
    board: Board,
    rows: list[dict[str, Any]],
    page: paging.Window | None,
) -> dict[str, Any]:
    declared = tables.declaration(board)
    return {
        # Which release's board this is: the one `?release=` names, else the default one.
        "release": _release_info(board_release(request)),
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
        "strict_note": (
            "strict is the share of all tasks the model fully passes (P3 and P4 at 1: every "
            "trace window and every invariant; P3 n/a does not stand in the way), strict_passed "
            "their number; a secondary figure, not the rank."
        ),
        "page": _page_info(request, rows, page),
    }


def _release_info(named: Release | None) -> dict[str, Any] | None:
    """The release a board shows: `named`, else the default (newest approved) one; None when no
    release has been approved (the board of the runs scored before releases)."""
    release = named or Release.board_default()
    if release is None:
        return None
    return {
        "name": release.name,
        "identity": release.identity,
        "default": named is None or release.pk == getattr(Release.board_default(), "pk", None),
        "url": release.get_absolute_url(),
    }


def _page_info(
    request: HttpRequest, rows: list[dict[str, Any]], page: paging.Window | None
) -> dict[str, Any]:
    if page is None:
        count = len(rows)
        return {"number": paging.ALL, "pages": 1, "models_total": count,
                "first": min(1, count), "last": count, "previous": None, "next": None}  # fmt: skip
    return {
        "number": page.number,
        "pages": page.pages,
        "models_total": page.total,
        "first": page.first,
        "last": page.last,
        "previous": f"{request.path}{page.previous_url}" if page.previous_url else None,
        "next": f"{request.path}{page.next_url}" if page.next_url else None,
        "all": f"{request.path}?{_with_page(request, paging.ALL)}",
    }


def _with_page(request: HttpRequest, value: str) -> str:
    query = request.GET.copy()
    query["page"] = value
    return query.urlencode()


def _json_model(r: dict[str, Any]) -> dict[str, Any]:
    return {
        **tables.export_record(r),
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


def _json_stream(head: dict[str, Any], models: Iterable[dict[str, Any]]) -> Iterator[str]:
    """The same document JsonResponse would write, one model per chunk."""
    opening = json.dumps(head, indent=1, cls=DjangoJSONEncoder)
    yield opening[: opening.rindex("}")].rstrip() + ',\n "models": [\n'
    for index, model in enumerate(models):
        yield ("," if index else "") + json.dumps(model, cls=DjangoJSONEncoder) + "\n"
    yield "]\n}\n"


def _csv_lines(rows: list[dict[str, Any]], board: Board) -> Iterator[str]:
    """The header, then one line per row (generated lazily, so a full download streams)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")

    def flush() -> str:
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return text

    columns: list[str] | None = None
    for row in rows:
        record = _csv_record(tables.export_record(row), row, board)
        safe = {key: safe_cell(_csv_value(value)) for key, value in record.items()}
        if columns is None:
            columns = list(safe)
            writer.writerow(columns)
        writer.writerow(["" if safe.get(c) is None else safe.get(c) for c in columns])
        yield flush()
    if columns is None:
        writer.writerow(["rank", "model"])
        yield flush()


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
    awaiting = Run.objects.awaiting_cells([model.pk])
    task_rows = tables.model_task_rows(board, model.pk, traced, awaiting)
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
        # The badge's Markdown names the site by its full address: it is pasted elsewhere.
        "site": request.build_absolute_uri("/").rstrip("/"),
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
    try:
        number = paging.parse_page(request.GET.get("page"), allow_all=False)
    except ValueError as error:
        number, page_error = 1, str(error)
    else:
        page_error = ""
    page = paging.window(runs, number, request.GET, paging.RUNS_PER_PAGE, "runs")
    context = {
        "task": task,
        "description_html": render_markdown(task.description),
        "contract": contract_info(task.slug),
        "traces": trace_status(task),
        "page": page,
        "page_error": page_error,
        "runs": [(run, tables.run_url(run.pk), percent_text(run.overall)) for run in page.items],
    }
    return render(request, "leaderboard/task_detail.html", context)
