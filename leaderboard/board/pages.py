"""Static-ish pages: how scoring works (with the live weights, tasks and scorer version)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from evaluation.surface import SCORER_VERSION, TIMEOUT_RULE
from leaderboard.board.aggregate import OFFICIAL_WEIGHTS, PHASE_LABELS, PHASES
from leaderboard.board.policy import PUBLISHED_TABLES
from leaderboard.board.uncertainty import RESAMPLES
from leaderboard.models import Task
from leaderboard.tasks.info import trace_status

PHASE_NAMES = {
    "syntax": "Syntax",
    "runtime": "Runtime",
    "conformance": "Conformance",
    "invariant": "Invariants",
}


def methodology(request: HttpRequest) -> HttpResponse:
    tasks = Task.objects.prefetch_related("corpora")
    context = {
        "weights": [
            {
                "label": PHASE_LABELS[p],
                "name": PHASE_NAMES[p],
                "weight": w,
                "percent": round(w * 100),
            }
            for p, w in zip(PHASES, OFFICIAL_WEIGHTS, strict=True)
        ],
        "tasks": [(task, trace_status(task)["corpus"]) for task in tasks],
        "scorer_version": SCORER_VERSION,
        "timeout_rule": TIMEOUT_RULE,
        "resamples": RESAMPLES,
        "tables": list(PUBLISHED_TABLES.values()),
    }
    return render(request, "leaderboard/methodology.html", context)
