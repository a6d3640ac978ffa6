"""Run pages: drill-down, window permalinks, live status, exports, publish.

Every run is read through `Run.objects.visible_to(request.user)`: another account's private run
is a 404 (not a 403, which would confirm that it exists).
"""

import csv

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from leaderboard.accounts.tokens import user_from_authorization
from leaderboard.models import ReviewError, Run, WindowResult
from leaderboard.releases.identity import release_note
from leaderboard.runs import drilldown, pairs
from leaderboard.scoring.export import (
    CSV_COLUMNS,
    conformance_split,
    run_csv_rows,
    run_summary,
    run_with_progress,
)
from leaderboard.scoring.queueing import queue_position, wait_estimate
from leaderboard.shared import disclosure
from leaderboard.shared.csv_safe import safe_row
from leaderboard.shared.errors import api_error
from leaderboard.shared.requests import AuthenticatedRequest


def _run(request: HttpRequest, pk: int) -> Run:
    runs = Run.objects.visible_to(request.user).select_related("model", "task", "submitter")
    return get_object_or_404(runs, pk=pk)


def _position(run: Run) -> int | None:
    return queue_position(run) if run.status == Run.Status.QUEUED else None


@require_GET
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run(request, pk)
    context = drilldown.run_page(
        run,
        expand_action=request.GET.get("all_windows"),
        all_undecided=request.GET.get("all_undecided") == "1",
    )
    context["queue_position"] = _position(run)
    context["disclosure"] = disclosure.describe(run)
    context["max_attempts"] = settings.SCORING_MAX_ATTEMPTS
    context["queue_wait"] = wait_estimate(run) if context["queue_position"] else None
    context["release_note"] = release_note(run)
    context["conformance_split"] = conformance_split(run)
    context["is_mine"] = request.user.is_authenticated and run.submitter_id == request.user.pk
    return render(request, "leaderboard/run_detail.html", context)


@require_POST
@login_required
def run_publish(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(Run.objects.owned_by(request.user), pk=pk)
    try:
        run.publish(by=request.user)
    except ReviewError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            "Published: the run is public now and goes onto the board once a maintainer "
            "approves it.",
        )
    return redirect(run)


@require_GET
def window_detail(request: HttpRequest, pk: int, window_pk: int) -> HttpResponse:
    run = _run(request, pk)
    window = get_object_or_404(WindowResult, pk=window_pk, phase_result__run=run)
    rows = drilldown.window_rows(window)
    context = {
        "run": run,
        "window": window,
        "rows": rows,
        # The footnote explains the ≠ mark only on a page that shows one.
        "marked": any(row.get("differs") for row in rows),
        "blocking": drilldown.blocking_conjunct(window),
    }
    # ?vs=<window pk>: the same window as another run of the task checked it (from compare).
    other = pairs.same_window(window, request.GET.get("vs", ""), request.user)
    if other is not None:
        context.update(other=other, other_rows=drilldown.window_rows(other))
    return render(request, "leaderboard/run_window.html", context)


def _run_for_script(request: HttpRequest, pk: int) -> Run | None:
    """The run as the signed-in user or the request's API token may read it: a script polls
    its own private run with the same token it submitted with."""
    user = user_from_authorization(request.headers.get("Authorization", "")) or request.user
    runs = Run.objects.visible_to(user).select_related("model", "task", "submitter")
    return runs.filter(pk=pk).first()


@require_GET
def run_status(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run_for_script(request, pk)
    if run is None:
        # JSON even under DEBUG: a polling script reads an error, never an HTML page.
        return api_error(404)
    return JsonResponse(run_summary(run, _position(run)))


@require_GET
def run_export_json(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run_for_script(request, pk)
    if run is None:
        return api_error(404)
    response = JsonResponse(run_with_progress(run, _position(run)), json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="run-{pk}.json"'
    return response


@require_GET
def run_export_csv(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run(request, pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="run-{pk}.csv"'
    writer = csv.writer(response)
    writer.writerow(CSV_COLUMNS)
    writer.writerows(safe_row(row) for row in run_csv_rows(run))
    return response
