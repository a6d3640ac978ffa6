"""Record the current scoring identity as a named release (docs/decisions/0027-releases.md)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.releases.identity import ReleaseError, make_release


class Command(BaseCommand):
    help = "Name the current scorer + tools + contracts + corpora identity as a release."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the release's name, e.g. 2026.12")
        parser.add_argument(
            "--changelog", required=True, help="what changed and which verdicts it moves"
        )

    def handle(self, *args: Any, name: str, changelog: str, **options: Any) -> None:
        try:
            release = make_release(name, changelog)
        except ReleaseError as exc:
            raise CommandError(str(exc)) from exc
        tasks = release.components["tasks"]
        unmatched = sorted(s for s, t in tasks.items() if t["windows_sha256"] is None)
        self.stdout.write(
            f"release {release.name}: identity {release.identity[:12]}, scorer "
            f"{release.components['scorer_version']}, {len(tasks)} tasks, "
            f"{release.runs.count()} existing run(s) attached"
        )
        if unmatched:
            self.stdout.write(
                "not imported as in the data folder (run import_benchmark): " + ", ".join(unmatched)
            )
        self.stdout.write("approve it after reading the rescoring diff: manage.py approve_release")
