"""The site's data layer: each domain's models with their named queries beside them, the
board's change marks, and the signals the layers above listen to.

State changes of a Run go through its methods (claim, hold, finish, fail, requeue, publish,
approve, reject) so that views, jobs and the admin never hand-edit status or review fields; each
is a conditional UPDATE on the state it was read in (and, once claimed, on the attempt).

Django finds the models here; every other module imports them from this package.
"""

from evaluation.scoring import PHASE_WEIGHTS, PHASES, cell_score
from leaderboard.models.accounts import ApiToken
from leaderboard.models.board import BoardCell, BoardMark, BoardModelRow, BoardScope
from leaderboard.models.models_under_test import ModelUnderTest
from leaderboard.models.releases import Release, Rescore
from leaderboard.models.results import (
    NOT_CREDITED,
    PHASE_NAMES,
    ActionResult,
    Credit,
    InvariantResult,
    PhaseResult,
    WindowResult,
)
from leaderboard.models.runs import REQUEUED, AttemptLost, ReviewError, Run, RunEvent
from leaderboard.models.tasks import Task, TraceCorpus, TraceWindow

__all__ = [
    "NOT_CREDITED",
    "PHASES",
    "PHASE_NAMES",
    "PHASE_WEIGHTS",
    "REQUEUED",
    "ActionResult",
    "ApiToken",
    "AttemptLost",
    "BoardCell",
    "BoardMark",
    "BoardModelRow",
    "BoardScope",
    "Credit",
    "InvariantResult",
    "ModelUnderTest",
    "PhaseResult",
    "Release",
    "Rescore",
    "ReviewError",
    "Run",
    "RunEvent",
    "Task",
    "TraceCorpus",
    "TraceWindow",
    "WindowResult",
    "cell_score",
]
