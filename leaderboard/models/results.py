"""What a run's phases found: per phase, per action, per window, per invariant."""

from django.db import models

from evaluation.scoring import PHASES
from leaderboard.models.runs import Run

PHASE_NAMES = {
    "syntax": "Syntax",
    "runtime": "Runtime",
    "conformance": "Conformance",
    "invariant": "Invariants",
}


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
