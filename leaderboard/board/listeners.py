"""The board's listeners to the data layer's signals (connected in LeaderboardConfig.ready)."""

from __future__ import annotations

from typing import Any

from leaderboard.board import store
from leaderboard.models.marks import board_changed


def mark_finished_run(run: Any, **_: object) -> None:
    """`run_finished`: only the finished run's (model, task) cell can have changed."""
    board_changed(run.model_id, run.task_id)


def build_wanted_scope(scope: int, **_: object) -> None:
    """`board_scope_wanted`: built now, so the request that asks for it does not build it."""
    store.ensure(scope)
