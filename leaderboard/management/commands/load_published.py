"""Load fixtures/published.json (tasks, models, reported runs) idempotently.

`loaddata` would overwrite whatever rows happen to hold the fixture's primary keys, so on a
database with runs of its own we match rows by natural keys instead: tasks and models by
slug, reported runs by (model, task, source), phase results by (run, phase).
"""

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core import serializers
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.db.models import Model

from leaderboard.models import ModelUnderTest, PhaseResult, Run, Task
from leaderboard.models.marks import invalidate_board_cache

DEFAULT_FIXTURE = Path(settings.BASE_DIR) / "fixtures" / "published.json"


def _existing_pk(obj: Model, fixture_pk_maps: dict[type[Model], dict[int, int]]) -> int | None:
    if isinstance(obj, Task | ModelUnderTest):
        found = type(obj).objects.filter(slug=obj.slug).values_list("pk", flat=True).first()
        return found
    if isinstance(obj, Run):
        obj.model_id = fixture_pk_maps[ModelUnderTest][obj.model_id]
        obj.task_id = fixture_pk_maps[Task][obj.task_id]
        return (
            Run.objects.reported()
            .filter(model_id=obj.model_id, task_id=obj.task_id, source=obj.source)
            .values_list("pk", flat=True)
            .first()
        )
    if isinstance(obj, PhaseResult):
        obj.run_id = fixture_pk_maps[Run][obj.run_id]
        return (
            PhaseResult.objects.filter(run_id=obj.run_id, phase=obj.phase)
            .values_list("pk", flat=True)
            .first()
        )
    raise ValueError(f"unexpected object in the published fixture: {obj!r}")


def load_published(path: Path = DEFAULT_FIXTURE) -> dict[str, int]:
    """Upsert every object of the fixture; returns how many objects of each kind were created."""
    created: dict[str, int] = {}
    fixture_pk_maps: dict[type[Model], dict[int, int]] = {Task: {}, ModelUnderTest: {}, Run: {}}
    with transaction.atomic(), open(path) as f:
        # Fixture order is tasks, models, runs, phases, so every foreign key is mapped in time.
        for item in serializers.deserialize("json", f):
            obj = item.object
            fixture_pk = obj.pk
            obj.pk = _existing_pk(obj, fixture_pk_maps)
            if isinstance(obj, Run):
                # Published figures are on the board by definition; no review queue for them.
                obj.review = Run.Review.APPROVED
            if obj.pk is None:
                created[type(obj).__name__] = created.get(type(obj).__name__, 0) + 1
            obj.save()
            if type(obj) in fixture_pk_maps:
                fixture_pk_maps[type(obj)][fixture_pk] = obj.pk
    invalidate_board_cache()
    return created


class Command(BaseCommand):
    help = "Load the published SysMoBench tasks, models and reported runs (safe to repeat)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--fixture", type=Path, default=DEFAULT_FIXTURE)

    def handle(self, *args: Any, fixture: Path, **options: Any) -> None:
        created = load_published(fixture)
        summary = ", ".join(f"{n} {kind}" for kind, n in created.items()) or "nothing new"
        self.stdout.write(f"Loaded {fixture.name}: created {summary}.")
