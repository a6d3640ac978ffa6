"""The rq job's old dotted path, kept for jobs queued before the layout moved it.

rq stores a job's function as the dotted path it was queued with; jobs queued by the previous
release name `leaderboard.jobs.evaluate_run`. Remove this alias one release after 2026.12.
"""

from leaderboard.scoring.jobs import evaluate_run

__all__ = ["evaluate_run"]
