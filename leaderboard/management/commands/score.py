"""Score one spec from the command line: no web server, no Redis.

    python manage.py score --task spin spec.tla [--cfg spec.cfg] [--adapter adapter.yaml]
        [--data-dir DIR] [--windows FILE] [--heldout-dir DIR] [--phases ...] [--json]

The same command as `python -m evaluation score` (evaluation/cli.py), with the data folder and
the held-out folder (`HELDOUT_DATA_DIR`: its windows give the official P3) taken from the
site's settings: all four phases (the default) go through
`evaluation.pipeline.score_spec`, exactly as the scoring job does: same gating, same composite,
same fingerprint. `--phases` runs only the phases named, in the official order; a phase then
gates only on the selected phases before it, and no overall is given (it would not be the
official figure).

`--json` gives the overall and each phase's score as the site publishes them (3 decimals,
leaderboard/shared/rounding.py: 1.0, not 0.9999999999999999), with the float as computed beside them
(`overall_unrounded`, `score_unrounded`), as the site's run JSON does.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation import surface
from leaderboard.shared.rounding import figure


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
                heldout_dir=options["heldout_dir"] or settings.HELDOUT_DATA_DIR,
                heldout_windows_file=options["heldout_windows"],
            )
        except surface.InputError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(published(result), indent=2, default=str))
        else:
            self.stdout.write(surface.render_report(result))


def published(result: dict[str, Any]) -> dict[str, Any]:
    """The result with its scores rounded as the site's pages and JSON round them."""
    out = dict(result)
    if "overall" in out:
        out["overall"], out["overall_unrounded"] = figure(result["overall"]), result["overall"]
    phases = out.get("phases")
    if isinstance(phases, dict):
        out["phases"] = {
            name: {
                **phase,
                "score": figure(phase.get("score")),
                "score_unrounded": phase.get("score"),
            }
            for name, phase in phases.items()
        }
    return out
