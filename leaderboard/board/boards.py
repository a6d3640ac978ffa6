"""The board a page shows: read from the stored board (store.py) under a view, cached.

`get_board` is what every page and export calls; `compute_board` is the same board uncached.
The rules that turn runs into cells and rows are aggregate.py's; this module only chooses
which stored material a view reads and where the result is kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

from django.core.cache import cache

from leaderboard.board import store
from leaderboard.board.aggregate import (
    Board,
    TaskColumn,
    Weights,
    add_intervals,
    add_rank_ranges,
    cell_samples,
    check_choice,
    counted_cells,
    model_rows,
    scored,
    table_weights,
    with_published_figures,
)
from leaderboard.board.memo import LocalMemo
from leaderboard.board.policy import DEFAULT_POLICY, DEFAULT_TABLE, MEAN, SITE
from leaderboard.models import Release, Task

# Computed boards are kept per process only, never in the shared cache: a process computes a
# board once per version of its scope (docs/decisions/0026-stored-board-and-paging.md, "What
# each cache buys": 311 ms at 1,000 models, against 95 ms to unpickle it from Redis, both
# within the cold goal of 500 ms; the warm request is the memo's, 34 ms).
_LOCAL_BOARDS = LocalMemo()
# Boards under a visitor's own weights: any number of weight vectors can be asked for, so they
# are kept here only, at most this many per process, and never in the shared cache, whose Redis
# also holds the job queue (docs/decisions/0029-abuse-bounds.md: one key per ?w= value piled up
# there).
CUSTOM_BOARDS_KEPT = 32
_CUSTOM_BOARDS = LocalMemo(CUSTOM_BOARDS_KEPT)


def is_default_view(weights: Weights, policy: str, published: str) -> bool:
    """The view the stored board keeps ready (store.py): mean policy, site table, its weights."""
    return policy == MEAN and published == SITE and weights == table_weights(None, SITE)


def compute_board(
    weights: Iterable[float | str] | None = None,
    policy: str = DEFAULT_POLICY,
    published: str = DEFAULT_TABLE,
    release: Release | None = None,
) -> Board:
    """The board from the stored aggregate, brought up to date first (uncached); see
    get_board()."""
    check_choice(policy, published)
    scope = store.scope_of(release)
    version = store.ensure(scope)
    return board_of_scope(scope, table_weights(weights, published), policy, published, version)


def board_of_scope(
    scope: int, weights: Weights, policy: str, published: str, version: int | None = None
) -> Board:
    """The board of a stored scope under a view. The default view reads its cells and overall
    intervals as stored; any other is arithmetic on the runs' figures the cells keep (no read
    of the run tables), with its intervals drawn afresh. With the scope's `version`, those
    figures are decoded once per version and process, not once per view.

    Not from the cells' own phase means: those cannot give a custom board equal to this one
    (docs/decisions/0029-abuse-bounds.md;
    tests/test_custom_weight_boards_equal_the_full_build.py). A cell's interval
    resamples its runs' overalls under the weights in use, which its means do not determine;
    the best policy picks a run by them; a run's timed-out phase keeps its score in the phase
    mean but counts 0 in the overall; and even where none of this applies, the weighted sum of
    means differs from the mean of weighted sums in the last bits."""
    tasks: list[TaskColumn] = list(Task.objects.values("id", "slug", "name", "kind", "position"))
    n_tasks = max(len(tasks), 1)
    if is_default_view(weights, policy, published):
        cells = store.default_cells(scope)
        rows = model_rows(cells, store.models_frame(), n_tasks)
        rows = rows.merge(store.overall_intervals(scope), on="model_id", how="left")
        add_rank_ranges(rows)
    else:
        raw, paper, units = (
            store.stored_runs(scope) if version is None else store.stored_runs_at(scope, version)
        )
        frame = scored(with_published_figures(raw, published, paper), weights)
        cells = counted_cells(frame, policy)
        rows = model_rows(cells, store.models_frame(), n_tasks)
        samples = cell_samples(cells, frame, policy, weights, lambda _: units)
        add_intervals(cells, rows, samples, n_tasks)
    return Board(
        weights=weights, tasks=tasks, rows=rows, cells=cells, policy=policy, published=published
    )


def forget_cached_boards() -> None:
    """Drop this process's boards and what the shared cache holds of the pages (rows, charts,
    the featured comparison): what a bench does to time a cold board (the stored cells stay;
    only what is computed from them goes)."""
    _LOCAL_BOARDS.clear()
    _CUSTOM_BOARDS.clear()
    store.forget_stored_runs()
    cache.clear()


# The columns a computed Board has; part of the key (the rows, charts and featured comparison
# the shared cache keeps under it were made from a board of this layout).
BOARD_LAYOUT = 2


def get_board(
    weights: Iterable[float | str] | None = None,
    policy: str = DEFAULT_POLICY,
    published: str = DEFAULT_TABLE,
    release: Release | None = None,
    before_computing: Callable[[], None] | None = None,
) -> Board:
    """The board under `weights` (default: the published table's), the policy and the table,
    cached with its intervals; `official_rank` maps model id -> rank under the table's own
    weights so callers can show how a re-weighting moves each model.

    `before_computing` is called before a board under custom weights is computed (not when it
    is at hand): a view counts it against the client's rate of costly reads, and may raise."""
    check_choice(policy, published)
    normalised = table_weights(weights, published)
    scope = store.scope_of(release)
    # The scope's version moves with every change to its cells, in whatever process made it,
    # so a board kept by any process is never older than the stored cells.
    version = store.ensure(scope)
    parts = f"{BOARD_LAYOUT}:{scope}:{version}:{normalised}:{policy}:{published}"
    key = "board:" + hashlib.sha256(parts.encode()).hexdigest()
    custom = normalised != table_weights(None, published)
    if custom:
        found: Board | None = _CUSTOM_BOARDS.get(key)
        if found is not None:
            return found
        if before_computing is not None:
            before_computing()
    board: Board | None = None if custom else _LOCAL_BOARDS.get(key)
    if board is None:
        board = board_of_scope(scope, normalised, policy, published, version)
        board.key = key
        official = board if not custom else get_board(None, policy, published, release)
        board.official_rank = dict(zip(official.rows.model_id, official.rows["rank"], strict=True))
        if custom:
            _CUSTOM_BOARDS.set(key, board)
            return board
    _LOCAL_BOARDS.set(key, board)
    return board
