"""Retire a release and publish its held-out traces with it.

    python manage.py retire_release NAME [--heldout-dir DIR]

The held-out folder (default settings.HELDOUT_DATA_DIR) must be, file for file, the one the
release recorded (its content hash per task); its trace files are packed into the release's
downloads (`releases/NAME/heldout.zip`, `leaderboard/releases/artifacts.py`) so the release's
results stay reproducible. A retired release's held-out set is public from then on: the next
release needs fresh held-out traces (`make_release` refuses one that would reuse them).
"""

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.surface import ContractError, load_all_contracts
from leaderboard.releases.artifacts import HeldoutMismatch, heldout_archive
from leaderboard.releases.identity import ReleaseError, find_release


class Command(BaseCommand):
    help = "Retire a release and publish its held-out traces with it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the release's name")
        parser.add_argument("--heldout-dir", help="the held-out folder (HELDOUT_DATA_DIR)")

    def handle(self, *args: Any, name: str, **options: Any) -> None:
        try:
            release = find_release(name)
        except ReleaseError as exc:
            raise CommandError(str(exc)) from exc
        if release.retired:
            raise CommandError(f"release {release.name} was retired already")
        folder = options["heldout_dir"] or settings.HELDOUT_DATA_DIR
        archive = None
        if folder is not None:
            try:
                contracts = load_all_contracts(settings.TASKS_DATA_DIR)
                archive = heldout_archive(release, Path(folder), contracts)
            except (ContractError, HeldoutMismatch, OSError) as exc:
                raise CommandError(str(exc)) from exc
        elif any(t.get("heldout_sha256") for t in release.components.get("tasks", {}).values()):
            raise CommandError(
                f"release {release.name} was scored with a held-out set: give its folder "
                "(--heldout-dir or HELDOUT_DATA_DIR) so it is published with the release"
            )
        release.retire(archive)
        published = f"{len(archive)} bytes of held-out traces published" if archive else "none"
        self.stdout.write(f"release {release.name} retired ({published})")
