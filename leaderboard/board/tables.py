"""Turn a computed Board into the rows the board pages and exports show.

Kept apart from aggregate.py (which computes numbers) and from the views (which stay short):
everything here is presentation: labels, links, sorting and filtering of rows.
"""

from collections.abc import Callable, Mapping
from typing import Any

from django.core.cache import cache
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode

from leaderboard.board.aggregate import (
    FUNNEL_STAGES,
    PHASE_LABELS,
    PHASES,
    Board,
    TaskColumn,
    records,
)
from leaderboard.board.boards import get_board, is_default_view
from leaderboard.board.forms import TEXT_SORTS
from leaderboard.board.memo import LocalMemo
from leaderboard.board.policy import DEFAULT_TABLE, POLICIES, PUBLISHED_TABLES, REPORTED_NOTE
from leaderboard.board.uncertainty import CONFIDENCE, RESAMPLES
from leaderboard.models import ModelUnderTest
from leaderboard.shared.rounding import CELL, figure, percent_text

NOT_SUBMITTED = "not submitted"
NOT_PUBLISHED = "n not published"
NOT_PUBLISHED_TITLE = "n not published: a published figure, the best of an unstated number of runs"
TIE_TITLE = "its rank range overlaps another row's: not separable at 95%"
KIND_LABELS = dict(ModelUnderTest.Kind.choices)


_PLACEHOLDER = 987654321
_LOCAL_ROWS = LocalMemo()
ROWS_CACHE_SECONDS = 600

Row = dict[str, Any]
RunUrl = Callable[[int], str | None]


def run_url_maker() -> RunUrl:
    """A function run id -> run page URL (None while the run pages are not installed).

    One reverse() per page cell adds up (121 cells); the pattern is the same for every run."""
    try:
        pattern = reverse("run_detail", args=[_PLACEHOLDER])
    except NoReverseMatch:
        return lambda run_id: None
    return lambda run_id: pattern.replace(str(_PLACEHOLDER), str(int(run_id)))


def run_url(run_id: int) -> str | None:
    return run_url_maker()(run_id)


def _cell(board: Board, row: Row, task: TaskColumn, url_for: RunUrl) -> Row:
    cell = board.cell(row["model_id"], task["id"])
    if cell is None:
        return {"task": task["slug"], "value": None, "text": NOT_SUBMITTED, "submitted": False}
    n = None if cell["n"] != cell["n"] else int(cell["n"])
    ci = _interval(cell.get("ci_low"), cell.get("ci_high"), CELL)
    return {
        "task": task["slug"],
        "value": cell["overall"],
        "figure": figure(cell["overall"], CELL),
        "text": percent_text(cell["overall"], CELL),
        "submitted": True,
        "n": n,
        "ci": ci,
        "ci_basis": cell.get("ci_basis") if ci else None,
        "ci_text": _interval_text(ci),
        "provenance": cell["provenance"],
        "run_id": int(cell["run_id"]),
        "run_url": url_for(cell["run_id"]),
        "phases": {p: cell[p] for p in PHASES},
        "statuses": {p: cell[f"{p}_status"] for p in PHASES},
    }


def _interval(low: float | None, high: float | None, kind: str) -> list[float] | None:
    if low is None or high is None or low != low or high != high:
        return None
    return [figure(low, kind), figure(high, kind)]  # type: ignore[list-item]


def _interval_text(ci: list[float] | None) -> str:
    # ×100 with one decimal, as the site prints every score.
    return "no interval" if ci is None else f"95% CI {ci[0] * 100:.1f}–{ci[1] * 100:.1f}"


def declaration(board: Board) -> dict[str, Any]:
    """What the board states about its numbers, for the page and both exports."""
    table = PUBLISHED_TABLES[board.published]
    uncertainty = (
        f"{round(CONFIDENCE * 100)}% percentile-bootstrap intervals ({RESAMPLES} resamples, "
        "fixed seed): over a cell's runs when it has two or more (ci_basis 'runs'), else over "
        "its run's trace windows and invariants (ci_basis 'units'); none for reported cells. "
        "The overall's interval resamples every cell and averages as the overall does. Rank "
        "range [best, worst]: best = 1 + models whose lower bound is above this upper bound; "
        "worst = models whose upper bound is at least this lower bound (itself included)."
    )
    return {
        "policy": POLICIES[board.policy],
        "reported": REPORTED_NOTE,
        "published": {
            "name": table.key,
            "title": table.title,
            "source": table.source,
            "differs": table.differs,
            "weights": dict(zip(PHASES, table.weights, strict=True)),
        },
        "others": [t for key, t in PUBLISHED_TABLES.items() if key != board.published],
        "uncertainty": uncertainty,
    }


def funnel_rows(board: Board, rows: list[Row]) -> list[dict[str, Any]]:
    """The funnel's counts of the models `rows` shows, in their order."""
    shown = board.funnel().set_index("model_id").loc[[r["model_id"] for r in rows]].reset_index()
    return [{**f, "counts": [int(f[s]) for s in FUNNEL_STAGES]} for f in records(shown)]


def leaderboard_rows(board: Board) -> list[Row]:
    """One dict per model, in rank order, with every value the page or an export needs; cached
    with the board, in this process and in the shared cache (turning a board into rows costs
    about 1 ms a model: a second at 1,000 models, which the writer of a change pays once,
    warming them, instead of the first reader in every web process)."""
    if not board.key:
        return _rows_of(board)
    rows: list[Row] | None = _LOCAL_ROWS.get(board.key) or cache.get(f"rows:{board.key}")
    if rows is None:
        rows = _rows_of(board)
        cache.set(f"rows:{board.key}", rows, ROWS_CACHE_SECONDS)
    _LOCAL_ROWS.set(board.key, rows)
    # Callers filter and sort into new lists; the only change made to a row is `page_html`'s:
    # adding its <tr>, the same text whoever adds it.
    return rows


def _rows_of(board: Board) -> list[Row]:
    url_for = run_url_maker()
    # Only the default view's rows carry their <tr> from the start: the writer of a change
    # renders them once for every reader. Any other view is asked for one page at a time,
    # so `page_html` renders the page's rows (a re-weighted board of 1,000 models spent a
    # second rendering rows nobody was shown).
    eager = is_default_view(board.weights, board.policy, board.published)
    return [_board_row(board, row, url_for, with_html=eager) for row in records(board.rows)]


def page_html(rows: list[Row], board: Board) -> list[Row]:
    """`rows` with their <tr> (rendered here for those that lack it, kept on the row, so this
    process renders a row of a view once)."""
    for r in rows:
        if "html" not in r:
            r["html"] = _row_html(r, r["cells"], custom=board.custom)
    return rows


STRICT_TITLE = "tasks fully passed: every trace window and every invariant (P3 and P4 at 100)"

SOURCE_TITLES = {
    "reported": "published by SysMoBench, not yet scored here",
    "verified": "every counted run was scored on this site",
    "mixed": "some tasks scored here, others published figures",
}


def _row_html(r: Row, cells: list[Row], custom: bool) -> str:
    """One board row's <tr>, rendered once with the cached rows rather than by the template on
    every request (a hundred models × seventeen cells is most of the page's rendering time)."""
    delta = ""
    if custom:
        tone = "pass" if r["delta"] > 0 else "fail" if r["delta"] < 0 else ""
        text = f"{r['delta']:+d}" if r["delta"] else "0"
        delta = format_html('<td class="num delta {}">{}</td>', tone, text)
    phases = format_html_join(
        "", '<td class="num phase">{}</td>', ((p["text"],) for p in r["phases"])
    )
    cells_html = format_html_join("", "{}", ((_cell_html(r["name"], c),) for c in cells))
    best, worst = r["rank_range"]
    span = f"{best}" if best == worst else f"{best}–{worst}"
    tie = format_html(' <span class="tie" title="{}">tie</span>', TIE_TITLE) if r["tie"] else ""
    tied = format_html(' class="{}"', "tied") if r["tie"] else ""
    return format_html(
        '<tr data-model="{}"{}><td class="num rank">{}'
        '<small class="rank-range" title="rank range [best, worst] from the 95% intervals">'
        "{}</small>{}</td>{}"
        '<td class="model"><a href="{}">{}</a><span class="org">{} · {}</span></td>'
        '<td class="num overall"><strong>{}</strong><small class="ci">{}</small></td>'
        '<td class="num strict" title="{}">{}</td>{}{}'
        '<td class="source"><span class="badge {}" title="{}">{}</span></td></tr>',
        r["slug"], tied, r["rank"], span, tie, delta, r["url"], r["name"], r["organisation"],
        r["kind_label"], r["overall_text"], r["overall_ci_text"], STRICT_TITLE, r["strict_text"],
        phases, cells_html,
        r["provenance"], SOURCE_TITLES.get(r["provenance"], ""), r["provenance"],
    )  # fmt: skip


def _cell_html(name: str, c: Row) -> str:
    if not c["submitted"]:
        return format_html(
            '<td class="num cell missing" title="{} on {}: not submitted (counts 0)">'
            '<span class="visually-hidden">not submitted</span><span aria-hidden="true">–</span>'
            "</td>",
            name,
            c["task"],
        )
    n = _n_html(c)
    if not c["run_url"]:
        return format_html('<td class="num cell {}">{}{}</td>', c["provenance"], c["text"], n)
    return format_html(
        '<td class="num cell {}"><a href="{}" title="{} on {}: run {} ({}), {}">{}</a>{}</td>',
        c["provenance"], c["run_url"], name, c["task"], c["run_id"], c["provenance"],
        c["ci_text"], c["text"], n,
    )  # fmt: skip


def _n_html(c: Row) -> str:
    if c["n"] is None:
        return format_html(
            '<small class="n" title="{}"><span aria-hidden="true">n?</span>'
            '<span class="visually-hidden">{}</span></small>',
            NOT_PUBLISHED_TITLE, NOT_PUBLISHED,
        )  # fmt: skip
    return format_html('<small class="n">n={}</small>', c["n"])


def model_summary(board: Board, model_id: int) -> Row | None:
    """The board row of one model (its page's headline), None when it has no counted run."""
    match = board.rows[board.rows.model_id == model_id]
    if match.empty:
        return None
    return _board_row(board, records(match)[0], run_url_maker())


def published_summaries(model_id: int, site: Row | None = None) -> list[Row]:
    """The model's overall and phase means under each published table (its own weights, the
    default policy); `site` is its row on the default board when the caller has it already."""
    summaries = []
    for key, table in PUBLISHED_TABLES.items():
        known = site if key == DEFAULT_TABLE and site is not None else None
        row = known or model_summary(get_board(published=key), model_id)
        if row is not None:
            summaries.append({"key": key, "title": table.title, "source": table.source,
                              "differs": table.differs, "overall_text": row["overall_text"],
                              "phases": row["phases"], "rank": row["rank"]})  # fmt: skip
    return summaries


def _board_row(board: Board, row: Row, url_for: RunUrl, with_html: bool = True) -> Row:
    mean = PUBLISHED_TABLES[board.published].mean_rounding
    rank = int(row["rank"])
    official = int(board.official_rank.get(row["model_id"], rank))
    entry = {
        "model_id": row["model_id"],
        "rank": rank,
        "official_rank": official,
        "delta": official - rank,
        "name": row["name"],
        "slug": row["slug"],
        "url": reverse("model_detail", args=[row["slug"]]),
        "organisation": row["organisation"],
        "kind": row["kind"],
        "kind_label": KIND_LABELS.get(row["kind"], row["kind"]),
        "provenance": row["provenance"],
        "overall": row["overall"],
        "overall_figure": figure(row["overall"], mean),
        "overall_text": percent_text(row["overall"], mean),
        "overall_ci": (ci := _interval(row["overall_ci_low"], row["overall_ci_high"], mean)),
        "overall_ci_text": "" if ci is None else _interval_text(ci).removeprefix("95% CI "),
        "overall_ci_basis": row.get("overall_ci_basis"),
        "rank_range": [int(row["rank_best"]), int(row["rank_worst"])],
        # The strict secondary figure: tasks fully passed, of all the board's tasks.
        "strict": float(row["strict"]),
        "strict_passed": int(row["strict_passed"]),
        "strict_text": f"{int(row['strict_passed'])}/{len(board.tasks)}",
        "tie": bool(row["tie"]),
        "phases": [
            {
                "phase": p,
                "value": _nan_to_none(row[p]),
                "figure": figure(row[p], mean),
                "text": percent_text(row[p], mean),
            }
            for p in PHASES
        ],
        "cells": (cells := [_cell(board, row, task, url_for) for task in board.tasks]),
    }
    if with_html:
        entry["html"] = _row_html(entry, cells, custom=board.custom)
    return entry


def _nan_to_none(value: float | None) -> float | None:
    return None if value is None or value != value else float(value)


def filter_rows(rows: list[Row], kind: str, organisation: str) -> list[Row]:
    return [
        r
        for r in rows
        if (not kind or r["kind"] == kind)
        and (not organisation or r["organisation"] == organisation)
    ]


def _sort_value(row: Row, key: str) -> str | float:
    if key in TEXT_SORTS:
        return str(row[key]).lower()
    if key in ("rank", "delta", "overall", "strict"):
        return float(row[key])
    for phase in row["phases"]:
        if phase["phase"] == key:
            return -1.0 if phase["value"] is None else float(phase["value"])
    for cell in row["cells"]:
        if cell["task"] == key:
            # A task not submitted sorts below a submitted 0.
            return -1.0 if cell["value"] is None else float(cell["value"])
    raise KeyError(key)


def sort_rows(rows: list[Row], sort: str) -> list[Row]:
    """`sort` is a column key, `-key` for descending; the board rank breaks ties."""
    key = sort.lstrip("-")
    by_rank = sorted(rows, key=lambda r: r["rank"])
    return sorted(by_rank, key=lambda r: _sort_value(r, key), reverse=sort.startswith("-"))


def _first_direction(key: str) -> str:
    # Scores read best-first; names, ranks and rank changes read in their natural order.
    return "" if key in (*TEXT_SORTS, "rank") else "-"


def column_headers(
    params: Mapping[str, str], sort: str, tasks: list[TaskColumn], show_delta: bool
) -> dict[str, list[Row]]:
    """Header label, link and arrow for every sortable column, preserving the other params."""

    def header(key: str, label: str, title: str = "") -> Row:
        active = sort.lstrip("-") == key
        if active:
            next_sort = key if sort.startswith("-") else f"-{key}"
        else:
            next_sort = f"{_first_direction(key)}{key}"
        query = {k: v for k, v in params.items() if v and k != "sort"}
        query["sort"] = next_sort
        arrow = ("▼" if sort.startswith("-") else "▲") if active else ""
        return {"key": key, "label": label, "title": title or label, "arrow": arrow,
                "url": "?" + urlencode(query), "active": active}  # fmt: skip

    fixed = [header("rank", "#", "Rank")]
    if show_delta:
        fixed.append(header("delta", "Δ rank", "Rank change against the official weights"))
    # Organisation and kind are shown under the model's name (and stay sortable by URL), so the
    # board fits 1280 px without scrolling sideways.
    fixed += [
        header("name", "Model"),
        header("overall", "Overall"),
        header("strict", "Strict", STRICT_TITLE),
    ]
    phases = [header(p, PHASE_LABELS[p], p.capitalize()) for p in PHASES]
    task_headers = [header(t["slug"], t["slug"], t["name"]) for t in tasks]
    return {"fixed": fixed, "phases": phases, "tasks": task_headers}


def model_task_rows(
    board: Board,
    model_id: int,
    traced: frozenset[int] = frozenset(),
    awaiting: dict[tuple[int, int], int] | None = None,
) -> list[Row]:
    """The model page's task × phase table, in board column order. `traced` holds the ids of
    tasks with trace data: elsewhere a reported P3 came from the original harness. `awaiting`
    (RunQuerySet.awaiting_cells) names the published runs of cells the board has not yet."""
    rows = []
    for task in board.tasks:
        cell = board.cell(model_id, task["id"])
        entry: Row = {"task": task, "url": reverse("task_detail", args=[task["slug"]])}
        if cell is None:
            pending = (awaiting or {}).get((model_id, task["id"]))
            entry.update(submitted=False, text=NOT_SUBMITTED, awaiting_run=pending)
        else:
            entry.update(
                submitted=True,
                text=percent_text(cell["overall"], CELL),
                provenance=cell["provenance"],
                harness_p3=cell["provenance"] == "reported" and task["id"] not in traced,
                run_url=run_url(cell["run_id"]),
                run_id=int(cell["run_id"]),
                n=None if cell["n"] != cell["n"] else int(cell["n"]),
                ci_text=_interval_text(_interval(cell["ci_low"], cell["ci_high"], CELL)),
                phases=[
                    {
                        "phase": p,
                        "status": cell[f"{p}_status"]
                        if isinstance(cell[f"{p}_status"], str)
                        else "not reached",
                        "text": "n/a" if cell[p] != cell[p] else percent_text(cell[p], CELL),
                    }
                    for p in PHASES
                ],
            )
        rows.append(entry)
    return rows


def export_record(r: Row) -> Row:
    """A board row as the exports write it (leaderboard.json and .csv, the dataset's JSONL)."""
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
        # The strict secondary figure: the share of the board's tasks fully passed.
        "strict": round(r["strict"], 4),
        "strict_passed": r["strict_passed"],
    }
    # Published figures (leaderboard.shared.rounding), so an export equals the page and the paper.
    record.update({p["phase"]: p["figure"] for p in r["phases"]})
    record.update({c["task"]: c.get("figure") for c in r["cells"]})
    return record
