"""The tasks: a system to model, its trace corpora and their windows."""

from django.db import models
from django.urls import reverse
from django.utils import timezone


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
