"""Static-ish pages: how scoring works (with the live weights, tasks and scorer version), and the
JSON API's documentation (docs/API.md, rendered)."""

from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from evaluation.surface import SCORER_VERSION, TIMEOUT_RULE
from leaderboard.board.aggregate import OFFICIAL_WEIGHTS, PHASE_LABELS, PHASES
from leaderboard.board.policy import PUBLISHED_TABLES
from leaderboard.board.uncertainty import RESAMPLES
from leaderboard.models import Task
from leaderboard.tasks.info import render_markdown, trace_status

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


def api_docs(request: HttpRequest) -> HttpResponse:
    """docs/API.md as a page: one text for the repository and the site, so they never differ.
    Its examples name the server as `$SMB`; the page says which address that is here."""
    html = _api_html(_api_doc_path())
    return render(
        request,
        "leaderboard/api_docs.html",
        {"doc": html, "site": request.build_absolute_uri("/").rstrip("/")},
    )


def _api_doc_path() -> Path:
    return Path(settings.BASE_DIR) / "docs" / "API.md"


@lru_cache(maxsize=2)
def _api_html(path: Path) -> str:
    # The file ships with the code (the web image copies it); read and rendered once a process.
    return render_markdown(path.read_text(encoding="utf-8"))
