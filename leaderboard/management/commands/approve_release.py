"""Make a release the board's default, once its rescoring diff has been read."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.releases.identity import ReleaseError, find_release
from leaderboard.releases.rescoring import progress


class Command(BaseCommand):
    help = "Make a release the board's default (the newest approved release is)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the release's name")

    def handle(self, *args: Any, name: str, **options: Any) -> None:
        try:
            release = find_release(name)
        except ReleaseError as exc:
            raise CommandError(str(exc)) from exc
        state = progress(release)
        if not release.approve():
            raise CommandError(f"release {release.name} was approved already")
        self.stdout.write(
            f"release {release.name} is the board's default now "
            f"(rescoring: {state.done} done, {state.pending} pending, {state.failed} failed)"
        )
