"""A run (one scoring of one spec on one task), its state changes and its event log."""

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.db.models import F, Value
from django.db.models.functions import Concat
from django.urls import reverse
from django.utils import timezone

# The one import of the site that bypasses evaluation.surface (an ignore_imports entry of the
# contract in pyproject.toml): every Django process loads the models, and the surface would
# bring the phases, tree-sitter and YAML with it (django.setup() 0.8 s -> 1.05 s here), while
# evaluation.scoring is a leaf of a few milliseconds.
from evaluation.scoring import cell_score
from leaderboard.models.marks import board_changed
from leaderboard.models.models_under_test import ModelUnderTest
from leaderboard.models.run_queries import RunQuerySet
from leaderboard.models.signals import run_finished
from leaderboard.models.tasks import Task


class AttemptLost(Exception):
    """This scoring attempt no longer owns its run: the reaper re-queued it or another attempt
    ended it. The attempt must stop; whatever it computed is not written."""

    def __init__(self, run_id: int, attempt: int):
        super().__init__(f"run {run_id}: attempt {attempt} no longer owns the run")
        self.run_id, self.attempt = run_id, attempt


class ReviewError(ValueError):
    """A publish/approve/reject that the run's current state does not allow."""


# How a re-queue says so on a run's log, in words (the RunEvent row's `event` is what is read).
REQUEUED = "re-queued"


class Run(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        FAILED = "failed", "Failed"

    class Provenance(models.TextChoices):
        REPORTED = "reported", "Reported"
        VERIFIED = "verified", "Verified here"

    class Review(models.TextChoices):
        PRIVATE = "private", "Private"
        PENDING = "pending", "Published, awaiting review"
        APPROVED = "approved", "On the board"
        REJECTED = "rejected", "Rejected"

    model = models.ForeignKey(ModelUnderTest, on_delete=models.CASCADE, related_name="runs")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="runs")
    spec_text = models.TextField(blank=True)
    adapter_text = models.TextField(blank=True)
    # The submitter's own TLC .cfg (constants, model values, SPECIFICATION), optional.
    cfg_text = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    failure_reason = models.TextField(blank=True)
    provenance = models.CharField(
        max_length=10, choices=Provenance.choices, default=Provenance.VERIFIED
    )
    source = models.CharField(
        max_length=300, blank=True, help_text="Where reported figures come from"
    )
    fingerprint = models.JSONField(default=dict, blank=True)
    overall = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    log = models.TextField(blank=True)
    review = models.CharField(max_length=10, choices=Review.choices, default=Review.PRIVATE)
    published_at = models.DateTimeField(null=True, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    review_reason = models.TextField(blank=True, help_text="Shown to the submitter")
    # How the spec was made, as its submitter discloses it
    # (docs/decisions/0025-cell-policy-and-disclosure.md): every field is optional, and an empty one
    # reads "not disclosed". Validated by leaderboard.submit.forms.
    specs_generated = models.PositiveIntegerField(
        null=True, blank=True, help_text="Specs generated for this task and model"
    )
    specs_submitted = models.PositiveIntegerField(
        null=True, blank=True, help_text="Of those, how many are submitted here"
    )
    repair_rounds = models.PositiveIntegerField(null=True, blank=True)
    generated_by = models.CharField(
        max_length=10, choices=ModelUnderTest.Kind.choices, blank=True, help_text="LLM or agent"
    )
    generated_on = models.DateField(null=True, blank=True)
    tokens_in = models.PositiveBigIntegerField(null=True, blank=True)
    tokens_out = models.PositiveBigIntegerField(null=True, blank=True)
    cost_usd = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    # The release the run was scored under (set when it finishes); null: before releases, or
    # scored under an identity no release names.
    release = models.ForeignKey(
        "Release", null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    # A rescoring of another run's spec under a newer release; the original keeps its results.
    rescore_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rescored_as"
    )
    # The spec's shape (docs/decisions/0019-near-duplicates.md; `evaluation.tla.shape`, set by the
    # scoring job): the exact fingerprint, the sketch other runs are compared with, and the public
    # spec or earlier run of the task it is most like, when at least NEAR_DUPLICATE alike
    # (`{"reference": "spin/reference/spin.tla" | "run": id, "similarity": 0.97}`).
    shape_digest = models.CharField(max_length=64, blank=True, db_index=True)
    shape_sketch = models.JSONField(default=list, blank=True)
    similar_to = models.JSONField(null=True, blank=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["review", "status"]),
            models.Index(fields=["submitter", "created_at"]),
            # The task page's run list: one task's runs, newest first, a page at a time.
            models.Index(fields=["task", "created_at", "id"]),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(provenance="reported") | ~models.Q(source=""),
                name="reported_run_names_source",
            ),
            models.CheckConstraint(
                condition=models.Q(specs_submitted__isnull=True)
                | models.Q(specs_generated__isnull=True)
                | models.Q(specs_submitted__lte=models.F("specs_generated")),
                name="submitted_at_most_generated",
            ),
        ]

    def __str__(self) -> str:
        return f"Run {self.pk} {self.model} / {self.task}"

    def get_absolute_url(self) -> str:
        return reverse("run_detail", args=[self.pk])

    @property
    def near_duplicate_of(self) -> str:
        """What the spec is a near-duplicate of, in words ("" when nothing is flagged)."""
        similar = self.similar_to or {}
        if "similarity" not in similar:
            return ""
        what = f"run #{similar['run']}" if "run" in similar else similar.get("reference", "?")
        return f"{what} (similarity {float(similar['similarity']):.2f})"

    @property
    def is_terminal(self) -> bool:
        return self.status in {self.Status.FINISHED, self.Status.FAILED}

    def requeue_notes(self) -> list[str]:
        """Why earlier attempts were re-queued (a worker that died, a JVM killed from outside, a
        lost database connection), from the run's history: what the run page tells the
        submitter."""
        requeued = self.events.filter(event=RunEvent.Event.REQUEUED).order_by("at", "id")
        return list(requeued.values_list("reason", flat=True))

    def record(self, event: "RunEvent.Event", reason: str) -> None:
        """One step of the run's history: a RunEvent row under the current attempt (what is
        read), and the same words as a timestamped line on the text log (what maintainers see
        on the run page). The log is an UPDATE of that column only, so it never overwrites
        status fields another process may have changed."""
        at = timezone.now()
        RunEvent.objects.create(run=self, attempt=self.attempts, event=event, reason=reason, at=at)
        line = f"{at.strftime('%Y-%m-%d %H:%M:%S')} {reason}\n"
        Run.objects.filter(pk=self.pk).update(log=Concat(F("log"), Value(line)))

    def claim(self) -> bool:
        """QUEUED -> RUNNING with a conditional UPDATE; False when someone else has it."""
        now = timezone.now()
        claimed = Run.objects.filter(pk=self.pk, status=self.Status.QUEUED).update(
            status=self.Status.RUNNING,
            started_at=now,
            attempts=models.F("attempts") + 1,
        )
        if claimed:
            self.refresh_from_db()
        return bool(claimed)

    def finish(self, overall: float, fingerprint: dict[str, Any]) -> bool:
        """RUNNING -> FINISHED, only for the attempt that still owns the run (see `hold`);
        False when it lost (re-queued, or ended by another attempt): nothing is written."""
        now = timezone.now()
        won = self._owned().update(
            status=self.Status.FINISHED,
            overall=overall,
            fingerprint=fingerprint,
            finished_at=now,
            failure_reason="",
        )
        if won:
            self.status, self.overall, self.fingerprint = self.Status.FINISHED, overall, fingerprint
            self.finished_at, self.failure_reason = now, ""
            run_finished.send(sender=Run, run=self)
        return bool(won)

    def fail(self, reason: str) -> bool:
        """RUNNING -> FAILED under the same rule as `finish`; False when this attempt lost."""
        now = timezone.now()
        won = self._owned().update(
            status=self.Status.FAILED, failure_reason=reason, finished_at=now
        )
        if won:
            self.status, self.failure_reason, self.finished_at = self.Status.FAILED, reason, now
            self._drop_cached_board()
        return bool(won)

    def hold(self) -> None:
        """Lock the run's row until the current transaction ends, provided this attempt still
        owns it; raises AttemptLost otherwise.

        A phase write starts with this conditional UPDATE, so a reaper's `requeue` (or a newer
        attempt's claim) waits for the write to commit, and a write after it finds nothing to
        update: an old attempt can never overwrite what a newer one stored.
        """
        if not self._owned().update(status=self.Status.RUNNING):
            raise AttemptLost(self.pk, self.attempts)

    def _owned(self) -> RunQuerySet:
        # `attempts` counts claims, so it names the attempt this in-memory run was claimed as.
        return Run.objects.filter(pk=self.pk, status=self.Status.RUNNING, attempts=self.attempts)

    def _drop_cached_board(self) -> None:
        # Ending a run or moving its review is what the board depends on; callers need not
        # remember. Only this run's (model, task) cell can have changed.
        board_changed(self.model_id, self.task_id)

    def requeue(self) -> bool:
        """RUNNING -> QUEUED for a run whose worker died.

        Conditional on the attempt the reaper judged, so it cannot race a worker that finishes
        at the same moment nor re-queue an attempt that started since.
        """
        return bool(self._owned().update(status=self.Status.QUEUED, started_at=None))

    def publish(self, by: User) -> None:
        """PRIVATE -> PENDING: the submitter offers a finished run to the board.

        Conditional on the state it was read in, so a double click or a racing approval
        cannot publish twice or undo a review.
        """
        try:
            self._transition(
                frm=[self.Review.PRIVATE],
                only_if=models.Q(submitter=by, status=self.Status.FINISHED),
                why="Only the submitter can publish a run, once it has finished.",
                review=self.Review.PENDING,
                published_at=timezone.now(),
            )
        except ReviewError:
            raise ReviewError(self._why_not_publishable(by)) from None

    def _why_not_publishable(self, by: User) -> str:
        # Read again: the reason is the state the conditional UPDATE found, not the one loaded.
        self.refresh_from_db(fields=["review", "status", "submitter"])
        if self.submitter_id != by.pk:
            return "Only the submitter can publish a run."
        if self.review != self.Review.PRIVATE:
            return f"The run is published already ({self.get_review_display().lower()})."
        return f"Only a finished run can be published; this one is {self.status}."

    def approve(self, by: User, note: str = "") -> None:
        """PENDING -> APPROVED by a maintainer: from now on the run counts on the board.
        An optional note is shown to the submitter like a rejection's reason."""
        self._transition(
            frm=[self.Review.PENDING],
            only_if=models.Q(),
            why="Only a published run awaiting review can be approved.",
            review=self.Review.APPROVED,
            reviewed_by=by,
            reviewed_at=timezone.now(),
            review_reason=note.strip(),
        )

    def reject(self, by: User, reason: str) -> None:
        """PENDING or APPROVED -> REJECTED with a reason the submitter reads on the run page."""
        if not reason.strip():
            raise ReviewError("Give the submitter a reason for the rejection.")
        self._transition(
            frm=[self.Review.PENDING, self.Review.APPROVED],
            only_if=models.Q(),
            why="Only a published run can be rejected.",
            review=self.Review.REJECTED,
            reviewed_by=by,
            reviewed_at=timezone.now(),
            review_reason=reason.strip(),
        )

    def _transition(
        self, frm: Sequence[str], only_if: models.Q, why: str, **changes: object
    ) -> None:
        changed = (
            Run.objects.filter(only_if, pk=self.pk, review__in=frm)
            .exclude(provenance=self.Provenance.REPORTED)
            .update(**changes)
        )
        if not changed:
            raise ReviewError(why)
        self.refresh_from_db()
        self._drop_cached_board()

    DISCLOSURE_FIELDS = (
        "specs_generated",
        "specs_submitted",
        "repair_rounds",
        "generated_by",
        "generated_on",
        "tokens_in",
        "tokens_out",
        "cost_usd",
    )

    @property
    def generation_tokens(self) -> int | None:
        """Input plus output tokens of the generation; None when neither is known."""
        known = [n for n in (self.tokens_in, self.tokens_out) if n is not None]
        return sum(known) if known else None

    def weighted_score(self) -> float:
        """This run's cell score under the official weights, by the board's one rule."""
        results = list(self.phase_results.all())
        return cell_score(
            {r.phase: r.score for r in results},
            {r.phase: r.status for r in results},
            self.provenance,
        )


class RunEvent(models.Model):
    """One step of a run's scoring history, by attempt (`Run.record`); the run page's re-queue
    notes are these rows, not lines of the text log."""

    class Event(models.TextChoices):
        STARTED = "started", "Attempt started"
        NEAR_DUPLICATE = "near_duplicate", "Flagged as a near-duplicate"
        PHASE = "phase", "Phase finished"
        FINISHED = "finished", "Finished"
        FAILED = "failed", "Failed"
        STOPPED = "stopped", "Attempt stopped"
        REQUEUED = "requeued", "Re-queued"
        # A line of a log written before these rows whose kind is not known (0013's migration).
        NOTE = "note", "Note"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="events")
    attempt = models.PositiveSmallIntegerField()
    event = models.CharField(max_length=16, choices=Event.choices)
    reason = models.TextField(blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["run", "at", "id"]
        indexes = [models.Index(fields=["run", "event"], name="leaderboard_run_id_evt_idx")]

    def __str__(self) -> str:
        return f"run {self.run_id} attempt {self.attempt}: {self.event}"
