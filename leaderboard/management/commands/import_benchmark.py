"""Import the 11 tasks from tasks_data/ and their trace windows from a SysMoBench data folder.

Idempotent: a corpus whose content hash is already stored is skipped, and Task rows are saved
only when the contract changed.
"""

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.surface import ContractError
from leaderboard.models.marks import invalidate_board_cache
from leaderboard.tasks.importing import NO_TRACE_DATA, TaskImport, import_benchmark


class Command(BaseCommand):
    help = "Create/update Task rows from the task contracts and import trace windows."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--data-dir", default=None, help="SysMoBench data folder")
        parser.add_argument("--tasks-dir", default=None, help="contracts folder (tasks_data/)")

    def handle(
        self, *args: Any, data_dir: str | None = None, tasks_dir: str | None = None, **options: Any
    ) -> None:
        folder = Path(data_dir or settings.SYSMOBENCH_DATA_DIR)
        if not folder.is_dir():
            raise CommandError(f"data folder not found: {folder}")
        try:
            reports = import_benchmark(folder, tasks_dir)
        except ContractError as exc:
            raise CommandError(str(exc)) from exc
        for report in reports:
            self._print(report)
        if any(r.task_status != "unchanged" for r in reports):
            invalidate_board_cache()
        failed = [r.slug for r in reports if r.corpus_status == "error"]
        if failed:
            raise CommandError(f"trace data could not be cut for: {', '.join(failed)}")

    def _print(self, report: TaskImport) -> None:
        head = f"{report.slug}: task {report.task_status}; "
        if report.corpus_status == NO_TRACE_DATA:
            self.stdout.write(head + NO_TRACE_DATA)
            return
        if report.corpus_status == "error":
            self.stdout.write(head + f"ERROR {report.error}")
            return
        self.stdout.write(
            head + f"windows {report.corpus_status} ({report.window_count}, "
            f"version {report.version[:12]})"
        )
        for action, count in report.counts_by_action.items():
            self.stdout.write(f"  {action}: {count}")
        for event, count in report.unmapped.items():
            self.stdout.write(f"  (unmapped event {event}: {count}, not stored)")
