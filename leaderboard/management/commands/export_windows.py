"""Write a task's imported windows as a canonical windows file (JSON Lines, one window a line).

    python manage.py export_windows --task spin -o spin-windows.jsonl
    python manage.py export_windows --task spin > spin-windows.jsonl    # no -o: standard output

Without `-o` the windows go to standard output and nothing is written into the current folder
unasked; the summary line goes to standard error either way. The file is what
`python -m evaluation score --windows FILE` reads, e.g. in the scorer container:
the windows of the task's newest imported corpus, exactly the ones the site scores against.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.surface import write_windows
from leaderboard.models import Task
from leaderboard.tasks.importing import canonical_windows, current_corpus


class Command(BaseCommand):
    help = "Write a task's imported trace windows to a JSON Lines file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--task", required=True, help="task slug, e.g. spin")
        parser.add_argument(
            "-o", "--output", help="file to write (default: standard output; '-' says so too)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        slug = options["task"]
        task = Task.objects.filter(slug=slug).first()
        if task is None:
            raise CommandError(f"no task {slug!r}; run `manage.py import_benchmark` first")
        corpus = current_corpus(task)
        if corpus is None:
            raise CommandError(f"task {slug!r} has no imported trace windows")
        windows = canonical_windows(corpus)
        output = options["output"]
        if output in (None, "-"):
            write_windows(windows, self.stdout)
            output = "standard output"
        else:
            write_windows(windows, output)
        self.stderr.write(f"{len(windows)} windows of corpus {corpus.version} written to {output}")
