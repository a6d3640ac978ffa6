"""After a change is taken in, the writer computes what the board's first page needs from the
default board, so that the next request, in any process sharing the cache, computes nothing:
the board itself, its first page's charts (cached by their content) and the featured
comparison. The writer is the process that finished or reviewed a run (an rq work-horse, the
admin); it pays once for the readers.
"""

from __future__ import annotations

from leaderboard.board import charts, store, tables
from leaderboard.board.boards import get_board
from leaderboard.compare.overview import featured
from leaderboard.shared import paging

DEFAULT_SORT = "rank"


def refresh_and_warm(**_: object) -> None:
    """Listens to `board_marked`, which every committed mark sends (connected in
    LeaderboardConfig.ready)."""
    if not store.refresh_marked():
        return  # an earlier refresh of the same commit took the marks and warmed the board
    board = get_board()
    first_page = tables.sort_rows(tables.leaderboard_rows(board), DEFAULT_SORT)
    rows = first_page[: paging.MODELS_PER_PAGE]
    charts.phase_chart(rows)
    charts.funnel_chart(tables.funnel_rows(board, rows))
    featured(board)
