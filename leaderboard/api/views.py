"""The JSON API (v1): submit a spec and follow its run with an `Authorization: Bearer` token.

Only these token-authenticated views are csrf_exempt: a bearer token is not sent by a browser
on its own, so a cross-site request cannot use it. A token acts as its user: it submits for that
user's models, within that user's quotas, and reads only the runs that user may read.
"""

import json
from collections.abc import Callable
from functools import wraps
from typing import Concatenate, ParamSpec

from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from leaderboard.accounts.tokens import user_from_authorization
from leaderboard.models import ReviewError, Run
from leaderboard.scoring.export import run_with_progress
from leaderboard.scoring.queueing import queue_position
from leaderboard.shared.errors import api_error
from leaderboard.shared.params import parse_id
from leaderboard.shared.ratelimit import Limited, limit_posts, too_many_requests
from leaderboard.shared.rounding import figure
from leaderboard.submit.forms import SubmitForm
from leaderboard.submit.submissions import check_quota, submit
from leaderboard.web.views import leaderboard_export

API_FIELDS = (
    "task",
    "model",
    "new_model_name",
    "new_model_organisation",
    "new_model_kind",
    "spec_text",
    "adapter_text",
    "cfg_text",
)

# How the spec was made (optional): counts as JSON integers, the cost as a number, the date as
# "YYYY-MM-DD" and generated_by as "llm" | "agent". A string of digits is accepted too.
DISCLOSURE_NUMBERS = (
    "specs_generated",
    "specs_submitted",
    "repair_rounds",
    "tokens_in",
    "tokens_out",
    "cost_usd",
)
DISCLOSURE_TEXTS = ("generated_by", "generated_on")
# true: a spec whose only problem is that SANY rejects it is scored anyway (as the form's box).
SCORE_ANYWAY = "score_anyway"

P = ParamSpec("P")
RUNS_PER_PAGE = 50


def token_required(
    view: Callable[Concatenate[HttpRequest, User, P], HttpResponseBase],
) -> Callable[Concatenate[HttpRequest, P], HttpResponseBase]:
    """The view runs as the token's user, handed to it after the request; 401 without one."""

    @wraps(view)
    def wrapped(request: HttpRequest, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponseBase:
        user = user_from_authorization(request.headers.get("Authorization", ""))
        if user is None:
            return api_error(401)
        return view(request, user, *args, **kwargs)

    return csrf_exempt(wrapped)


def _is_text(value: object) -> bool:
    return value is None or isinstance(value, str)


def _is_number(value: object) -> bool:
    # bool is an int to Python, never a count to a reader.
    return value is None or (isinstance(value, int | float | str) and not isinstance(value, bool))


def _type_errors(payload: dict[str, object]) -> dict[str, list[str]]:
    wrong = {
        k: ["Must be a string."]
        for k in (*API_FIELDS, *DISCLOSURE_TEXTS)
        if k in payload and not _is_text(payload[k])
    }
    wrong.update(
        {
            k: ["Must be a number (or null)."]
            for k in DISCLOSURE_NUMBERS
            if k in payload and not _is_number(payload[k])
        }
    )
    if payload.get(SCORE_ANYWAY) not in (None, True, False):
        wrong[SCORE_ANYWAY] = ["Must be true or false."]
    return wrong


def _form_data(payload: dict[str, object]) -> dict[str, str]:
    data = {k: v for k in (*API_FIELDS, *DISCLOSURE_TEXTS) if isinstance(v := payload.get(k), str)}
    for k in DISCLOSURE_NUMBERS:
        value = payload.get(k)
        if value is not None:
            # The form's own fields validate it, so the API and the page give the same errors.
            data[k] = str(value)
    if payload.get(SCORE_ANYWAY) is True:
        data[SCORE_ANYWAY] = "on"
    return data


def _links(request: HttpRequest, run: Run) -> dict[str, str]:
    return {
        "page": request.build_absolute_uri(run.get_absolute_url()),
        "api": request.build_absolute_uri(reverse("api_run", args=[run.pk])),
        "status": request.build_absolute_uri(reverse("run_status", args=[run.pk])),
    }


@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def runs(request: HttpRequest) -> HttpResponseBase:
    """`/api/v1/runs`: GET lists the token's user's runs, POST submits one."""
    if request.method == "POST":
        return create_run(request)
    return list_runs(request)


@token_required
def list_runs(request: HttpRequest, user: User) -> HttpResponse:
    """The token's user's own runs, newest first, RUNS_PER_PAGE a page (`?page=2`)."""
    mine = Run.objects.owned_by(user).newest_first().select_related("model", "task")
    page = parse_id(request.GET.get("page")) or 1
    count = mine.count()
    pages = max(1, -(-count // RUNS_PER_PAGE))
    if page > pages:
        return api_error(404, f"There are {pages} pages of runs.")
    start = (page - 1) * RUNS_PER_PAGE
    listed = [_listed(request, run) for run in mine[start : start + RUNS_PER_PAGE]]
    base = request.build_absolute_uri(reverse("api_runs"))
    return JsonResponse({
        "count": count, "page": page, "pages": pages,
        "next": f"{base}?page={page + 1}" if page < pages else None,
        "previous": f"{base}?page={page - 1}" if page > 1 else None,
        "runs": listed,
    })  # fmt: skip


def _listed(request: HttpRequest, run: Run) -> dict[str, object]:
    return {
        "id": run.pk,
        "task": run.task.slug,
        "model": run.model.slug,
        "status": run.status,
        "review": run.review,
        "overall": figure(run.overall),
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "urls": _links(request, run),
    }


@require_POST
@limit_posts("upload", "RATE_LIMIT_UPLOADS_PER_IP", as_json=True)
@token_required
def create_run(request: HttpRequest, user: User) -> HttpResponse:
    try:
        check_quota(user)  # before the lint, which is the costly part
        return _create_run(request, user)
    except Limited as limited:
        return too_many_requests(request, limited, as_json=True)


def _create_run(request: HttpRequest, user: User) -> HttpResponse:
    try:
        payload = json.loads(request.body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        return api_error(400, "The body must be a JSON object (UTF-8).", code="invalid_json")
    except RecursionError:
        # json.loads recurses once per bracket: 100,000 "[" exhaust the stack.
        return api_error(400, "The body nests too deeply to be a submission.", code="invalid_json")
    except ValueError:
        # Python refuses to read an integer of over 4,300 digits (int_max_str_digits); no field
        # of a submission is a number anyway.
        return api_error(
            400,
            "The body holds a number too long to read (over 4,300 digits).",
            code="invalid_json",
        )
    if not isinstance(payload, dict):
        return api_error(400, "The body must be a JSON object.", code="invalid_json")
    wrong = _type_errors(payload)
    if wrong:
        return api_error(400, "Some fields have the wrong type.", wrong, code="invalid")
    form = SubmitForm(_form_data(payload), user=user)
    run = form.is_valid() and submit(form, user)
    if not run:
        errors = {field: [str(e) for e in errs] for field, errs in form.errors.items()}
        if form.offer_score_anyway:
            # The one problem is SANY's: the same upload with "score_anyway": true is scored.
            return api_error(400, "SANY rejects the spec; send it again with "
                             '"score_anyway": true to have it scored as it is.', errors,
                             code="sany_rejected", score_anyway=True)  # fmt: skip
        return api_error(400, "The upload did not pass the check.", errors, code="invalid")
    body = {"id": run.pk, "status": run.status, "urls": _links(request, run)}
    return JsonResponse(body, status=201)


@require_GET
@token_required
def run_detail(request: HttpRequest, user: User, pk: int) -> HttpResponse:
    runs = Run.objects.visible_to(user).select_related("model", "task", "submitter")
    run = get_object_or_404(runs, pk=pk)
    position = queue_position(run) if run.status == Run.Status.QUEUED else None
    body = run_with_progress(run, position)
    body["urls"] = _links(request, run)
    return JsonResponse(body)


@require_POST
@token_required
def publish_run(request: HttpRequest, user: User, pk: int) -> HttpResponse:
    """Publish one of the token's user's finished runs (as the button on its page does)."""
    run = get_object_or_404(Run.objects.owned_by(user), pk=pk)
    try:
        run.publish(by=user)
    except ReviewError as error:
        return api_error(409, str(error), code="conflict", review=run.review)
    return JsonResponse({"id": run.pk, "review": run.review, "urls": _links(request, run)})


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponseBase:
    """The board's own JSON export (same numbers, same query parameters, the same pages);
    public like the page."""
    return leaderboard_export(request, "json")
