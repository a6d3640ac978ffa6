"""Rebuild the stored board from the runs, or check that it matches them.

The board is kept up to date as runs change (leaderboard/board/store.py), so this is for an
operator: after a hand edit in the database that sent no signal, or to verify, with --check,
that the incremental refreshes left every cell as a build from scratch gives it.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.board import store


class Command(BaseCommand):
    help = "Rebuild every stored board scope from the runs (--check: compare, change nothing)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--check",
            action="store_true",
            help="compare the stored cells with a build from the runs; exit 1 if they differ",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["check"]:
            drift = store.drift()
            for scope, differences in drift.items():
                for line in differences:
                    self.stdout.write(f"scope {scope}: {line}")
            total = sum(len(d) for d in drift.values())
            if total:
                raise CommandError(f"{total} stored figures differ from the runs")
            self.stdout.write(f"{len(drift)} scopes checked: the stored board matches the runs")
            return
        scopes = store.rebuild_all()
        store.ensure(store.scope_of(None))  # builds the default scope only if it never was
        self.stdout.write(f"rebuilt {len(scopes)} board scopes: {', '.join(map(str, scopes))}")
