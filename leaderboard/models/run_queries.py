"""The runs' named queries. The weighted aggregate lives in leaderboard/board/aggregate.py.

Who may see what (docs/decisions/0028-access-and-hostile-input.md): a run is private to its
submitter until it is published; a published run is readable by anyone but reaches the board only
once a maintainer approves it. Every view reads runs through `visible_to(user)` and the board
through `on_board()`, so the rule lives here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypedDict, cast

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import connection, models
from django.utils import timezone

# Only named for the type checker: the model modules import this one, not the other way round,
# so at run time the other models are reached through the relations (`cast` names what they are).
if TYPE_CHECKING:
    from leaderboard.models.releases import Release
    from leaderboard.models.results import PhaseResult
    from leaderboard.models.runs import Run  # noqa: F401 - named in a QuerySet base below
    from leaderboard.models.tasks import Task

# Mirrors Run.Review; spelled out here because the run model imports this module.
PRIVATE, PENDING, APPROVED, REJECTED = "private", "pending", "approved", "rejected"
PUBLIC_REVIEW_STATES = (PENDING, APPROVED)
# The board scope of the runs before any release was approved (a release's scope is its id).
NO_RELEASE = 0


# Parameters a statement keeps for its other conditions, besides a batch of ids.
_OTHER_PARAMS = 16


def id_batches(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    """`ids` in slices one statement's parameters can hold: Django's `max_query_params` for
    the database (999 on SQLite, less a few for the statement's other conditions; no limit on
    PostgreSQL, one slice). An `__in` of every board cell's run passes SQLite's limit at a few
    thousand models."""
    limit = connection.features.max_query_params
    size = max(limit - _OTHER_PARAMS, 1) if limit else max(len(ids), 1)
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


class BoardRunRow(TypedDict):
    id: int
    model_id: int
    task_id: int
    provenance: str
    created_at: datetime


class BoardPhaseRow(TypedDict):
    run_id: int
    phase: str
    status: str
    score: float | None


class RunQuerySet(models.QuerySet["Run"]):
    def verified(self) -> RunQuerySet:
        return self.filter(provenance="verified")

    def reported(self) -> RunQuerySet:
        return self.filter(provenance="reported")

    def finished(self) -> RunQuerySet:
        return self.filter(status="finished")

    def queued(self) -> RunQuerySet:
        return self.filter(status="queued")

    def running(self) -> RunQuerySet:
        return self.filter(status="running")

    def in_flight(self, now: datetime | None = None) -> RunQuerySet:
        """What the per-user queue quota counts: runs that will still cost a worker. Every
        QUEUED run will (the reaper gives one whose job died a new job), and a RUNNING one
        until SCORING_STALE_AFTER_SECONDS: past that limit, which exceeds the job timeout, rq
        has stopped its work-horse, so the run only waits for the reaper and must not lock its
        account out. Nothing a submitter does moves a run out of this set sooner: the clock
        and the reaper decide, and a run the reaper re-queues counts again."""
        stale_before = (now or timezone.now()) - timedelta(
            seconds=settings.SCORING_STALE_AFTER_SECONDS
        )
        return self.filter(
            models.Q(status="queued")
            | (
                models.Q(status="running")
                & (models.Q(started_at__isnull=True) | models.Q(started_at__gte=stale_before))
            )
        )

    def newest_first(self) -> RunQuerySet:
        """A stable order for paging: newest first, the id breaking ties."""
        return self.order_by("-created_at", "-pk")

    def recent_scoring_seconds(self, limit: int) -> list[float]:
        """How long the last `limit` runs scored here took, claim to end (newest first)."""
        rows = (
            self.finished()
            .verified()
            .filter(started_at__isnull=False, finished_at__isnull=False)
            .order_by("-finished_at")
            .values_list("started_at", "finished_at")[:limit]
        )
        return [(end - start).total_seconds() for start, end in rows if start and end]

    def for_task(self, task: Task) -> RunQuerySet:
        return self.filter(task=task)

    def stale(self, older_than: datetime) -> RunQuerySet:
        """RUNNING runs whose worker has not finished since `older_than` (a datetime)."""
        return self.running().filter(started_at__lt=older_than)

    def public(self) -> RunQuerySet:
        """Runs their owner published (awaiting review or approved): readable by anyone."""
        return self.filter(review__in=PUBLIC_REVIEW_STATES)

    def owned_by(self, user: User | AnonymousUser) -> RunQuerySet:
        """Runs `user` submitted; none for an anonymous visitor."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(submitter=user)

    def visible_to(self, user: User | AnonymousUser) -> RunQuerySet:
        """Runs `user` may read: the public ones and their own (private or rejected included).

        Staff get no extra reach here: private runs are read in the admin, not on the site.
        """
        if not user.is_authenticated:
            return self.public()
        return self.filter(models.Q(review__in=PUBLIC_REVIEW_STATES) | models.Q(submitter=user))

    def awaiting_review(self) -> RunQuerySet:
        return self.filter(review=PENDING)

    def awaiting_cells(self, model_ids: Sequence[int]) -> dict[tuple[int, int], int]:
        """(model id, task id) -> the newest finished verified run of that cell awaiting review:
        what a page shows where the board has no cell yet, so a published run never reads as
        "not submitted"."""
        found: dict[tuple[int, int], int] = {}
        rows = (
            self.awaiting_review()
            .finished()
            .verified()
            .filter(model_id__in=model_ids)
            .order_by("created_at", "pk")
            .values_list("model_id", "task_id", "pk")
        )
        for model_id, task_id, pk in rows:
            found[(model_id, task_id)] = pk
        return found

    def countable(self) -> RunQuerySet:
        """Runs that may count on a board: finished, approved, verified here or reported with a
        source. Which board they count on is their scope (`in_scope`)."""
        return self.finished().filter(review=APPROVED, provenance__in=["verified", "reported"])

    def on_board(self, release: Release | None = None) -> RunQuerySet:
        """Runs that count on the public board: countable runs of the board's release
        (`in_release`). A published verified run waits here until a maintainer approves it."""
        return self.countable().in_release(release)

    def board_rows(self) -> list[BoardRunRow]:
        """One dict per run of this queryset: ids, provenance and creation time (feeds pandas)."""
        rows = self.values("id", "model_id", "task_id", "provenance", "created_at")
        return cast("list[BoardRunRow]", list(rows))

    def board_phase_rows(self) -> list[BoardPhaseRow]:
        """One dict per phase result of a run of this queryset: run id, phase, status, score."""
        phase_result = cast("type[PhaseResult]", self.model.phase_results.rel.related_model)
        return list(
            phase_result.objects.filter(run__in=self).values("run_id", "phase", "status", "score")
        )

    def board_published_figures(self, table: str) -> dict[int, dict[str, float | None]]:
        """Run id -> {phase: score} of the reported runs of this queryset that carry the figures
        of published table `table` (fixtures/build_published.py writes them)."""
        rows = self.reported().filter(fingerprint__has_key=table)
        return {
            pk: fingerprint[table]["phases"]
            for pk, fingerprint in rows.values_list("id", "fingerprint")
        }

    def board_unit_rows(
        self, run_ids: list[int]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """What a one-run interval resamples, for the runs `run_ids`: the conformance action
        rows (run_id, passed, total, detail) and the invariant rows (run_id, verdict) of their
        phases that ran. Two queries per batch of ids (`id_batches`)."""
        if not run_ids:
            return [], []
        phase_result = cast("type[PhaseResult]", self.model.phase_results.rel.related_model)
        actions: list[dict[str, Any]] = []
        invariants: list[dict[str, Any]] = []
        for batch in id_batches(run_ids):
            ran = phase_result.objects.filter(run_id__in=batch, status="ran")
            actions += [
                dict(a)
                for a in ran.filter(phase="conformance").values(
                    "run_id",
                    "action_results__passed",
                    "action_results__total",
                    "action_results__detail",
                )  # fmt: skip
                if a["action_results__total"]
            ]
            invariants += [
                dict(i)
                for i in ran.filter(phase="invariant").values(
                    "run_id", "invariant_results__verdict"
                )
                if i["invariant_results__verdict"]
            ]
        return actions, invariants

    def disclosed_on_model_page(self) -> RunQuerySet:
        """The runs on the board, by task in board order and newest first: the model page's
        "how the runs were made" table."""
        return (
            self.on_board()
            .select_related("task")
            .order_by("task__position", "task__slug", "-created_at", "-id")
        )

    def for_board_page(self) -> RunQuerySet:
        """Runs listed on task and model pages, newest first, with what their rows show."""
        return self.select_related("model", "task", "submitter").order_by("-created_at", "-id")

    def in_release(self, release: Release | None = None) -> RunQuerySet:
        """The runs of one release (docs/decisions/0027-releases.md): the verified runs scored under
        `release`, by default the newest approved one, beside the reported runs (the published
        figures, scored by no release of ours). With no approved release the board is as it was
        before releases, less the rescorings, which wait for their release's approval."""
        release_model = cast("type[Release]", self.model.release.field.related_model)
        chosen = release or release_model.board_default()
        return self.in_scope(chosen.pk if chosen is not None else NO_RELEASE)

    def in_scope(self, scope: int) -> RunQuerySet:
        """The runs a board scope counts: `scope` is a release's id, or NO_RELEASE (0) for the
        board before any release was approved (every run but the rescorings)."""
        if scope == NO_RELEASE:
            return self.filter(rescore_of__isnull=True)
        return self.filter(models.Q(provenance="reported") | models.Q(release_id=scope))
