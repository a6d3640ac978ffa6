"""Recover runs whose scoring worker died: re-queue while attempts remain, fail the rest.

Run it periodically (cron, a systemd timer, or an rq cron job); it is safe to run at any time
and from several machines, since every state change is a conditional UPDATE.
"""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from evaluation.surface import sweep_abandoned_run_dirs
from leaderboard.scoring.backends import reap_containers
from leaderboard.scoring.reaper import reap_stale_runs


class Command(BaseCommand):
    help = "Re-queue RUNNING runs whose worker died (bounded attempts) and fail the rest."

    def handle(self, *args: Any, **options: Any) -> None:
        outcome = reap_stale_runs()
        for label, run_ids in outcome.items():
            listed = ", ".join(map(str, run_ids)) or "none"
            self.stdout.write(f"{label}: {listed}")
        # A run directory outliving the stale-run threshold belongs to a worker that was killed.
        swept = sweep_abandoned_run_dirs(settings.SCORING_STALE_AFTER_SECONDS)
        self.stdout.write(f"abandoned sandbox directories removed: {len(swept)}")
        leftovers = reap_containers()
        if leftovers is not None:
            self.stdout.write(
                f"scorer containers removed: {len(leftovers['containers'])}, "
                f"input directories removed: {len(leftovers['inputs'])}"
            )
