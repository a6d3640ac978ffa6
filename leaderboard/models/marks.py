"""How a change reaches the stored board (leaderboard/board/store.py): a mark, written in the
transaction that makes the change, and a `board_marked` signal once it commits.

In the data layer so the models (which mark when a run fails or its review moves) need not
import the pandas aggregator. The web's listener refreshes eagerly, in the writer's process,
so the next board request finds nothing to do; a refresh that fails leaves its marks for the
next reader, which refreshes before it reads. A change is therefore never lost, only taken in
later.

Model methods that change what the board counts with a queryset `.update()` (a run failing,
its review moving, its release being set) mark explicitly, and a run finishing is marked by
the board's listener to `run_finished` (leaderboard/board/listeners.py); saves and deletes that
go through the ORM one row at a time (the admin, a shell, the tests' helpers) are marked by the
signals below. Bulk writes (`bulk_create`, `.update()` elsewhere) send no signal: their callers mark
(`invalidate_board_cache`), as load_published and import_benchmark do.
"""

from __future__ import annotations

import logging
from typing import Any

from django.apps import apps
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from leaderboard.models.signals import announce, board_marked, board_scope_wanted

log = logging.getLogger(__name__)
FINISHED = "finished"  # Run.Status.FINISHED; spelled out: the run model imports this module


def board_changed(model_id: int | None = None, task_id: int | None = None) -> None:
    """The cells of `model_id` (on `task_id`, or all its tasks) may have changed; with no
    model, anything may have (a bulk load, an edit nobody can place)."""
    mark = apps.get_model("leaderboard", "BoardMark")
    mark.objects.create(model_id=model_id, task_id=task_id)
    transaction.on_commit(_announce_marks, robust=True)


def invalidate_board_cache() -> None:
    """Everything on the board may have changed: the admin, bulk loads and tests that write
    rows straight to the database call this."""
    board_changed()


def scope_wanted(scope: int) -> None:
    """A scope a request will soon ask for (a release just approved becomes the board's
    default): built once the change commits, so that request does not build it."""

    # A listener that fails leaves the scope to the request that asks for it, which builds it.
    transaction.on_commit(lambda: announce(board_scope_wanted, scope=scope), robust=True)


def _announce_marks() -> None:
    # A listener that fails leaves the marks: the next board request refreshes instead.
    announce(board_marked)


# --- signals --------------------------------------------------------------------------------


def _run_saved(sender: Any, instance: Any, **_: Any) -> None:
    if instance.status == FINISHED:
        board_changed(instance.model_id, instance.task_id)


def _run_deleted(sender: Any, instance: Any, **_: Any) -> None:
    board_changed(instance.model_id, instance.task_id)


def _finished_run_changed(**run_filter: Any) -> None:
    """A result row of a finished run moved (a running run's rows reach the board when it
    finishes, which marks): one query finds the run and its cell."""
    run = apps.get_model("leaderboard", "Run")
    found = run.objects.filter(status=FINISHED, **run_filter).values_list("model_id", "task_id")
    for model_id, task_id in found[:1]:
        board_changed(model_id, task_id)


def _phase_result_changed(sender: Any, instance: Any, **_: Any) -> None:
    _finished_run_changed(pk=instance.run_id)


def _unit_changed(sender: Any, instance: Any, **_: Any) -> None:
    _finished_run_changed(phase_results__pk=instance.phase_result_id)


def _everything_changed(sender: Any, **_: Any) -> None:
    invalidate_board_cache()


def connect_signals() -> None:
    """Called once from LeaderboardConfig.ready(): ORM saves and deletes of what the board
    counts write marks."""
    model = apps.get_model
    run = model("leaderboard", "Run")
    post_save.connect(_run_saved, sender=run, dispatch_uid="board-run-saved")
    post_delete.connect(_run_deleted, sender=run, dispatch_uid="board-run-deleted")
    phase = model("leaderboard", "PhaseResult")
    for signal, uid in ((post_save, "saved"), (post_delete, "deleted")):
        signal.connect(_phase_result_changed, sender=phase, dispatch_uid=f"board-phase-{uid}")
        for name in ("ActionResult", "InvariantResult"):
            signal.connect(
                _unit_changed, sender=model("leaderboard", name), dispatch_uid=f"board-{name}-{uid}"
            )
        # A task added or removed changes every overall (they average over all tasks).
        signal.connect(
            _everything_changed,
            sender=model("leaderboard", "Task"),
            dispatch_uid=f"board-task-{uid}",
        )
    post_delete.connect(
        _model_deleted,
        sender=model("leaderboard", "ModelUnderTest"),
        dispatch_uid="board-model-deleted",
    )


def _model_deleted(sender: Any, instance: Any, **_: Any) -> None:
    # Its cells go with it (CASCADE); the mark moves the scopes' versions, so no cached board
    # still shows it.
    board_changed(instance.pk)
