"""Rescore approved runs under the current release, on the low-priority rescore queue.

Resumable and safe to run twice: each (run, release) has one Rescore record; runs whose record
is pending or done are not queued again, failed ones are retried. Progress is printed."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.models import Task
from leaderboard.releases.identity import ReleaseError, current_release, find_release
from leaderboard.releases.rescoring import rescore


class Command(BaseCommand):
    help = "Queue a rescoring of every approved run not yet scored under the current release."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--release", default=None, help="the release to score under (default: the current)"
        )
        parser.add_argument("--task", default=None, help="only this task's runs (its slug)")
        parser.add_argument("--dry-run", action="store_true", help="list, queue nothing")

    def handle(
        self,
        *args: Any,
        release: str | None = None,
        task: str | None = None,
        dry_run: bool = False,
        **options: Any,
    ) -> None:
        try:
            target = current_release()
            if release is not None and find_release(release).pk != target.pk:
                raise ReleaseError(
                    f"{release} is not the current release ({target.name}): a worker scores "
                    "only under the scorer, contracts and corpora it has now"
                )
        except ReleaseError as exc:
            raise CommandError(str(exc)) from exc
        if task and not Task.objects.filter(slug=task).exists():
            raise CommandError(f"no task {task!r}")
        result = rescore(target, task=task, dry_run=dry_run, say=self.stdout.write)
        self.stdout.write(result.line(target))
        if not dry_run:
            self.stdout.write(f"diff: /releases/{target.name}/diff/")
