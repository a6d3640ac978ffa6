"""The stored board (docs/decisions/0026-stored-board-and-paging.md): its change marks, its
scopes, and per scope one row per cell and per model."""

from django.db import models

from leaderboard.models.models_under_test import ModelUnderTest
from leaderboard.models.tasks import Task


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
