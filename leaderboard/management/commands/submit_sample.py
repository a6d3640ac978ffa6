"""Queue the reference spec of a task for scoring, so a fresh demo shows a verified run.

The run belongs to a clearly named demo model: reference specs are test fixtures written by us,
not results of any AI model. Running the command twice does not queue the same spec twice.
The operator running this command acts as the maintainer, so the run goes straight onto the
board when it finishes (no review step, no owner: the demo model is kept by the maintainers).
"""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from leaderboard.models import ModelUnderTest, Run, Task
from leaderboard.scoring.queueing import enqueue_run

DEMO_MODEL = {
    "slug": "demo-reference-specs",
    "name": "Demo: our reference specs",
    "organisation": "SysMoBench Leaderboard (demo)",
    "kind": ModelUnderTest.Kind.AGENT,
}


class Command(BaseCommand):
    help = "Queue a task's reference spec for scoring under a demo model (local demos only)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--task", default="spin")

    def handle(self, *args: Any, task: str, **options: Any) -> None:
        task_row = Task.objects.filter(slug=task).first()
        if task_row is None:
            raise CommandError(f"unknown task {task!r}: run import_benchmark first")
        spec_path = settings.TASKS_DATA_DIR / task / "reference" / f"{task_row.module_name}.tla"
        if not spec_path.is_file():
            raise CommandError(f"{task} has no reference spec at {spec_path.name}")
        spec_text = spec_path.read_text(encoding="utf-8")
        model, _ = ModelUnderTest.objects.get_or_create(
            slug=DEMO_MODEL["slug"], defaults={k: v for k, v in DEMO_MODEL.items() if k != "slug"}
        )
        existing = Run.objects.filter(model=model, task=task_row, spec_text=spec_text).exclude(
            status=Run.Status.FAILED
        )
        already = existing.first()
        if already is not None:
            self.stdout.write(f"already submitted: run {already.pk} ({already.status})")
            return
        with transaction.atomic():
            run = Run.objects.create(
                model=model,
                task=task_row,
                spec_text=spec_text,
                review=Run.Review.APPROVED,
                published_at=timezone.now(),
                reviewed_at=timezone.now(),
            )
            enqueue_run(run)
        self.stdout.write(f"queued run {run.pk}: {task} reference spec -> {run.get_absolute_url()}")
