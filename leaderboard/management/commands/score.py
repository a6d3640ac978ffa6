"""Score one spec from the command line: no web server, no Redis.

    python manage.py score --task spin spec.tla [--cfg spec.cfg] [--adapter adapter.yaml]
        [--data-dir DIR] [--windows FILE] [--phases syntax,runtime,conformance,invariant] [--json]

The same command as `python -m evaluation score` (evaluation/cli.py), with the data folder taken
from the site's settings: all four phases (the default) go through
`evaluation.pipeline.score_spec`, exactly as the scoring job does: same gating, same composite,
same fingerprint. `--phases` runs only the phases named, in the official order; a phase then
gates only on the selected phases before it, and no overall is given (it would not be the
official figure).
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation import surface


class Command(BaseCommand):
    help = "Score a TLA+ spec for a task (P1-P4, or the phases chosen) and print the result."

    def add_arguments(self, parser: CommandParser) -> None:
        surface.add_score_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            result = surface.score_files(
                options["spec"],
                options["task"],
                cfg=options["cfg"],
                adapter=options["adapter"],
                tasks_dir=settings.TASKS_DATA_DIR,
                windows_file=options["windows"],
                data_dir=options["data_dir"] or settings.SYSMOBENCH_DATA_DIR,
                phases=options["phases"],
            )
        except surface.InputError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(result, indent=2, default=str))
        else:
            self.stdout.write(surface.render_report(result))
