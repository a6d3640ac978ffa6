"""What the site offers other places (docs/decisions/0030-first-hour-and-peers.md): an embeddable
SVG badge per model and task, and the board as a Hugging Face dataset; the Atom feed is in
`feed.py`."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from leaderboard.board.aggregate import Board
from leaderboard.board.boards import get_board
from leaderboard.models import ModelUnderTest, Release, Run, Task
from leaderboard.outreach import dataset
from leaderboard.outreach.badges import OVERALL, badge_for, svg

# A badge is fetched by every page view of every README that embeds it: a shared cache may keep
# it this long, and this process keeps its SVG while the board's version stands.
BADGE_MAX_AGE = 300
# The badge's own policy: no script, no fetch, no frame; the inline style attributes only.
BADGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors *"


@require_GET
def badge(request: HttpRequest, model: str, task: str) -> HttpResponse:
    found = get_object_or_404(ModelUnderTest.objects.visible_to(request.user), slug=model)
    column = None if task == OVERALL else get_object_or_404(Task, slug=task)
    board = get_board()
    key = f"badge:{board.key}:{found.pk}:{task}"
    text: str | None = cache.get(key)
    if text is None:
        awaiting = column is not None and bool(
            Run.objects.awaiting_cells([found.pk]).get((found.pk, column.pk))
        )
        described = {"id": found.pk, "name": found.display_name}
        task_column = {"id": column.pk, "slug": column.slug} if column else None
        text = svg(badge_for(board, described, task_column, awaiting))
        cache.set(key, text, BADGE_MAX_AGE)
    response = HttpResponse(text, content_type="image/svg+xml; charset=utf-8")
    public = ModelUnderTest.objects.visible_to(AnonymousUser()).filter(pk=found.pk).exists()
    # A model only its owner sees yet must not be kept by a shared cache for everyone.
    scope = "public" if public else "private"
    response["Cache-Control"] = f"{scope}, max-age={BADGE_MAX_AGE}"
    response["Content-Security-Policy"] = BADGE_CSP
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _dataset_board() -> tuple[Board, Release | None]:
    """The default board (official weights, default policy) of the default release."""
    return get_board(), Release.board_default()


def _site(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


@require_GET
def dataset_card(request: HttpRequest) -> HttpResponse:
    board, release = _dataset_board()
    text = dataset.card(board, release, _site(request))
    return HttpResponse(text, content_type="text/markdown; charset=utf-8")


@require_GET
def dataset_jsonl(request: HttpRequest) -> StreamingHttpResponse:
    board, _ = _dataset_board()
    response = StreamingHttpResponse(
        dataset.jsonl_lines(board), content_type="application/jsonl; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{dataset.DATA_FILE}"'
    return response


@require_GET
def dataset_zip(request: HttpRequest) -> HttpResponse:
    board, release = _dataset_board()
    response = HttpResponse(
        dataset.zip_bytes(board, release, _site(request)), content_type="application/zip"
    )
    response["Content-Disposition"] = 'attachment; filename="sysmobench-leaderboard.zip"'
    return response
