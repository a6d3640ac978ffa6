"""The leaderboard's data: tasks, models under test, runs and their drill-down results.

State changes of a Run go through its methods (claim, hold, finish, fail, requeue, publish,
approve, reject) so that views, jobs and the admin never hand-edit status or review fields; each
is a conditional UPDATE on the state it was read in (and, once claimed, on the attempt).
"""

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import models
from django.db.models import F, Value
from django.db.models.functions import Concat
from django.urls import reverse
from django.utils import timezone

# PHASE_WEIGHTS is re-exported so Django-side code finds the official weights on the models.
# The one import of the site that bypasses evaluation.surface (an ignore_imports entry of the
# contract in pyproject.toml): every Django process loads this module, and the surface would
# bring the phases, tree-sitter and YAML with it (django.setup() 0.8 s -> 1.05 s here), while
# evaluation.scoring is a leaf of a few milliseconds.
from evaluation.scoring import PHASE_WEIGHTS, PHASES, cell_score  # noqa: F401
from leaderboard.board.marks import board_changed, scope_wanted
from leaderboard.querysets import ModelQuerySet, RunQuerySet

PHASE_NAMES = {
    "syntax": "Syntax",
    "runtime": "Runtime",
    "conformance": "Conformance",
    "invariant": "Invariants",
}


class AttemptLost(Exception):
    """This scoring attempt no longer owns its run: the reaper re-queued it or another attempt
    ended it. The attempt must stop; whatever it computed is not written."""

    def __init__(self, run_id: int, attempt: int):
        super().__init__(f"run {run_id}: attempt {attempt} no longer owns the run")
        self.run_id, self.attempt = run_id, attempt


class Task(models.Model):
    class Kind(models.TextChoices):
        CONCURRENT = "concurrent", "Concurrent"
        DISTRIBUTED = "distributed", "Distributed"

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100)
    system = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    language = models.CharField(max_length=40)
    module_name = models.CharField(max_length=100)
    source_repository = models.URLField()
    source_commit = models.CharField(max_length=100, blank=True)
    source_files = models.JSONField(default=list, blank=True)
    description = models.TextField(blank=True, help_text="Markdown")
    contract_version = models.CharField(max_length=64, blank=True)
    position = models.PositiveSmallIntegerField(default=0, help_text="Column order on the board")

    class Meta:
        ordering = ["position", "slug"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("task_detail", args=[self.slug])


class ModelUnderTest(models.Model):
    """An AI model or agent whose specs are scored.

    Named ModelUnderTest so it never shadows django.db.models.Model.
    """

    class Kind(models.TextChoices):
        LLM = "llm", "LLM"
        AGENT = "agent", "Agent"

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100)
    organisation = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.LLM)
    version = models.CharField(max_length=100, blank=True)
    link = models.URLField(blank=True)
    # Long names ("Claude, model version unrecorded, SysMoBench 2025 archive") wrap in narrow
    # columns; pages show this one and keep the full name in a title attribute.
    short_name = models.CharField(max_length=40, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="models_owned",
        help_text="The account that submits runs for this model; empty: kept by the maintainers "
        "(the published models).",
    )

    objects = ModelQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        verbose_name = "model"

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("model_detail", args=[self.slug])

    @property
    def display_name(self) -> str:
        return self.short_name or self.name

    def accepts_runs_from(self, user: User | AnonymousUser) -> bool:
        return ModelUnderTest.objects.submittable_by(user).filter(pk=self.pk).exists()


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
            self._drop_cached_board()
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


class PhaseResult(models.Model):
    class Status(models.TextChoices):
        RAN = "ran", "Ran"
        SKIPPED = "skipped", "Skipped"
        TIMEOUT = "timeout", "Timed out"  # stored by scorers before 2.1 only
        ERROR = "error", "Error"
        NOT_APPLICABLE = "n/a", "Not applicable"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="phase_results")
    phase = models.CharField(max_length=12, choices=[(p, PHASE_NAMES[p]) for p in PHASES])
    status = models.CharField(max_length=10, choices=Status.choices)
    score = models.FloatField(null=True, blank=True)
    details = models.JSONField(default=dict, blank=True)
    duration_seconds = models.FloatField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "phase"], name="one_result_per_phase"),
            models.CheckConstraint(
                condition=models.Q(score__isnull=True)
                | (models.Q(score__gte=0.0) & models.Q(score__lte=1.0)),
                name="phase_score_between_0_and_1",
            ),
        ]

    def __str__(self) -> str:
        score = "-" if self.score is None else round(self.score, 3)  # as published, not the float
        return f"{self.run_id}:{self.phase}={score}"


class ActionResult(models.Model):
    phase_result = models.ForeignKey(
        PhaseResult, on_delete=models.CASCADE, related_name="action_results"
    )
    action = models.CharField(max_length=100)
    passed = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["phase_result", "action"]
        constraints = [
            models.UniqueConstraint(fields=["phase_result", "action"], name="one_row_per_action"),
        ]

    def __str__(self) -> str:
        return f"{self.action}: {self.passed}/{self.total}"

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.total if self.total else None


class Credit(models.TextChoices):
    """What a stored window, action or invariant earns: the scorer's `Credit`
    (evaluation/results.py), the same values; pages, exports and the API read it, and never
    the reason's wording."""

    CREDITED = "credited", "Credited"
    FAILED = "failed", "Failed"
    UNDECIDED = "undecided", "Undecided"
    VACUOUS = "vacuous", "Vacuous"
    UNSPECIFIC = "unspecific", "Not credited"
    NOT_MODELLED = "not_modelled", "Not modelled by the spec"
    ABSENT = "absent", "Not checked"
    ERROR = "error", "Error"


# A stored invariant that holds without earning its point (the run page marks it).
NOT_CREDITED = (Credit.VACUOUS, Credit.UNSPECIFIC)


class WindowResult(models.Model):
    class Verdict(models.TextChoices):
        PASS = "pass", "Pass"
        FAIL = "fail", "Fail"
        # No pre-state of the spec could be built: not the spec's failure, never a pass.
        UNDECIDED = "undecided", "Undecided"
        ERROR = "error", "Error"

    phase_result = models.ForeignKey(
        PhaseResult, on_delete=models.CASCADE, related_name="window_results"
    )
    action = models.CharField(max_length=100)
    trace_id = models.CharField(max_length=200)
    window_id = models.CharField(max_length=100)
    actor = models.CharField(max_length=100, blank=True)
    pre_state = models.JSONField(default=dict)
    post_state = models.JSONField(default=dict)
    input = models.JSONField(null=True, blank=True)
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    credit = models.CharField(max_length=12, choices=Credit.choices)
    reason = models.TextField(blank=True)  # for the reader; nothing parses it
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["phase_result", "action", "id"]
        indexes = [models.Index(fields=["phase_result", "verdict"])]

    def __str__(self) -> str:
        return f"{self.action} window {self.window_id}: {self.verdict}"


class InvariantResult(models.Model):
    class Kind(models.TextChoices):
        SAFETY = "safety", "Safety"
        LIVENESS = "liveness", "Liveness"

    class Verdict(models.TextChoices):
        HOLDS = "holds", "Holds"
        VIOLATED = "violated", "Violated"
        TIMEOUT = "timeout", "Timed out"  # stored by scorers before 2.1 only
        ERROR = "error", "Error"

    phase_result = models.ForeignKey(
        PhaseResult, on_delete=models.CASCADE, related_name="invariant_results"
    )
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    credit = models.CharField(max_length=12, choices=Credit.choices)
    reason = models.TextField(blank=True)  # for the reader; nothing parses it
    counterexample = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["phase_result", "name"]
        constraints = [
            models.UniqueConstraint(fields=["phase_result", "name"], name="one_row_per_invariant"),
        ]

    def __str__(self) -> str:
        return f"{self.name}: {self.verdict}"


class TraceCorpus(models.Model):
    """One imported version of a task's trace windows; the hash is the corpus version."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="corpora")
    version = models.CharField(max_length=64, help_text="sha256 of the source files and cutter")
    source = models.CharField(max_length=300)
    imported_at = models.DateTimeField(default=timezone.now)
    window_count = models.PositiveIntegerField(default=0)
    counts_by_action = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name_plural = "trace corpora"
        ordering = ["task", "-imported_at"]
        constraints = [
            models.UniqueConstraint(fields=["task", "version"], name="one_corpus_per_version"),
        ]

    def __str__(self) -> str:
        return f"{self.task_id} corpus {self.version[:12]}"


class TraceWindow(models.Model):
    """A canonical transition window: var-first pre/post state around one action."""

    corpus = models.ForeignKey(TraceCorpus, on_delete=models.CASCADE, related_name="windows")
    window_id = models.CharField(max_length=100)
    trace_id = models.CharField(max_length=200)
    action = models.CharField(max_length=100)
    event = models.CharField(max_length=100, blank=True, help_text="The trace's own step name")
    actor = models.CharField(max_length=100, blank=True)
    pre_state = models.JSONField()
    post_state = models.JSONField()
    input = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["corpus", "id"]
        constraints = [
            models.UniqueConstraint(fields=["corpus", "window_id"], name="unique_window_in_corpus"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.trace_id}#{self.window_id}"


class ApiToken(models.Model):
    """A bearer token for the JSON API; only its sha256 is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    name = models.CharField(max_length=100)
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.user})"


# ---------------------------------------------------------------------------------------------
# Releases (docs/decisions/0027-releases.md): what a score was computed under, named, so boards and
# results are citable.


class Release(models.Model):
    """A named identity of everything a score depends on besides the spec: the scorer version,
    the TLA+ tools, every task contract and every trace corpus (`leaderboard/releases/`).

    The board shows the runs of one release: the newest approved one unless the URL names
    another. Approval is the maintainer's word that the release's rescoring diff was read.
    """

    name = models.CharField(max_length=40, unique=True)
    identity = models.CharField(max_length=64, unique=True, help_text="sha256 of components")
    components = models.JSONField(default=dict)
    changelog = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    approved_at = models.DateTimeField(null=True, blank=True)
    # Retired: its held-out traces are published (`heldout_archive`, packed by
    # `manage.py retire_release`) so its results stay reproducible; no later release may reuse
    # them (`identity.refuse_published_heldout`).
    retired_at = models.DateTimeField(null=True, blank=True)
    heldout_archive = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("release_detail", args=[self.name])

    @property
    def approved(self) -> bool:
        return self.approved_at is not None

    def approve(self) -> bool:
        """Make this release the board's default; False when it already was approved."""
        changed = Release.objects.filter(pk=self.pk, approved_at__isnull=True).update(
            approved_at=timezone.now()
        )
        self.refresh_from_db()
        if changed:
            scope_wanted(self.pk)
        return bool(changed)

    @property
    def retired(self) -> bool:
        return self.retired_at is not None

    def retire(self, archive: bytes | None) -> bool:
        """Retire the release, publishing its held-out traces (`archive`, a zip; None when it
        had none); False when it was retired already."""
        changed = Release.objects.filter(pk=self.pk, retired_at__isnull=True).update(
            retired_at=timezone.now(), heldout_archive=archive
        )
        self.refresh_from_db()
        return bool(changed)

    @classmethod
    def board_default(cls) -> "Release | None":
        return cls.objects.filter(approved_at__isnull=False).order_by("-approved_at", "-id").first()


class Rescore(models.Model):
    """One run's rescoring under a release: resumable (one row per (run, release)) and the
    source of the release's diff (old and new per phase and per action)."""

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="rescores")
    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="rescores")
    new_run = models.OneToOneField(
        Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="rescore_record"
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    old = models.JSONField(default=dict, blank=True)
    new = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["release", "run"]
        constraints = [
            models.UniqueConstraint(fields=["run", "release"], name="one_rescore_per_release"),
        ]

    def __str__(self) -> str:
        return f"rescore of run {self.run_id} under {self.release_id}: {self.state}"


class BoardMark(models.Model):
    """A change the stored board aggregate has not taken in yet (leaderboard/board/store.py).

    Written in the transaction that makes the change, so a change and its mark commit together;
    a refresh deletes only the marks it read before it read the runs. A mark with no model means
    "everything" (a bulk load, an edit whose cells nobody knows)."""

    model_id = models.BigIntegerField(null=True)
    task_id = models.BigIntegerField(null=True)

    def __str__(self) -> str:
        return f"board mark {self.pk}: model {self.model_id or 'all'}, task {self.task_id or 'all'}"


class BoardScope(models.Model):
    """One stored board: `scope` is the release id its runs are of, 0 for the board before any
    release was approved. `version` moves whenever its cells do (the board cache's key)."""

    scope = models.BigIntegerField(primary_key=True)
    version = models.BigIntegerField(default=0)
    n_tasks = models.IntegerField(default=0)

    def __str__(self) -> str:
        return f"board scope {self.scope} at version {self.version}"


class BoardCell(models.Model):
    """One (model, task) cell of a stored board: its figures under the default view (mean
    policy, the site's table, official weights) with their interval, and what any other view
    needs without reading the runs again (`runs`: one compact record per counted run;
    `first_units`: what a units-bootstrap of the first verified run draws)."""

    scope = models.BigIntegerField()
    model = models.ForeignKey(ModelUnderTest, on_delete=models.CASCADE, related_name="+")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="+")
    run_id = models.BigIntegerField()
    provenance = models.CharField(max_length=10)
    n = models.FloatField(null=True)
    overall = models.FloatField()
    syntax = models.FloatField(null=True)
    runtime = models.FloatField(null=True)
    conformance = models.FloatField(null=True)
    invariant = models.FloatField(null=True)
    syntax_status = models.CharField(max_length=10, blank=True, default="")
    runtime_status = models.CharField(max_length=10, blank=True, default="")
    conformance_status = models.CharField(max_length=10, blank=True, default="")
    invariant_status = models.CharField(max_length=10, blank=True, default="")
    ci_low = models.FloatField(null=True)
    ci_high = models.FloatField(null=True)
    ci_basis = models.CharField(max_length=10, blank=True, default="")
    runs = models.JSONField(default=list)
    first_units = models.JSONField(null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "model", "task"], name="one_cell_per_scope"),
        ]

    def __str__(self) -> str:
        return f"board cell of model {self.model_id} on task {self.task_id} (scope {self.scope})"


class BoardModelRow(models.Model):
    """A model's overall interval on a stored board under the default view (it resamples all
    the model's cells at once, so it is kept per model)."""

    scope = models.BigIntegerField()
    model = models.ForeignKey(ModelUnderTest, on_delete=models.CASCADE, related_name="+")
    ci_low = models.FloatField(null=True)
    ci_high = models.FloatField(null=True)
    ci_basis = models.CharField(max_length=10, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "model"], name="one_row_per_scope"),
        ]

    def __str__(self) -> str:
        return f"board row of model {self.model_id} (scope {self.scope})"
