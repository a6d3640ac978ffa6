"""Releases (docs/decisions/0027-releases.md): what a score was computed under, named, so
boards and results are citable; and the rescorings a release makes."""

from django.db import models
from django.urls import reverse
from django.utils import timezone

from leaderboard.models.marks import scope_wanted
from leaderboard.models.runs import Run


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
