"""Request guards: the body cap, the API's JSON errors, the rq dashboard's missing lookups."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import BadRequest, ImproperlyConfigured, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.http.response import HttpResponseBase
from rq.exceptions import NoSuchJobError

from leaderboard.shared.errors import api_error, is_api
from leaderboard.submit.lint import human_size

logger = logging.getLogger(__name__)

GetResponse = Callable[[HttpRequest], HttpResponseBase]


def body_size_cap(get_response: GetResponse) -> GetResponse:
    """Refuse a body over REQUEST_BODY_MAX_BYTES from its Content-Length, before reading any of
    it: a 100 MB upload costs nothing and its answer states its real size."""

    def middleware(request: HttpRequest) -> HttpResponseBase:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.REQUEST_BODY_MAX_BYTES
        if length > limit:
            message = (
                f"The request body is {human_size(length)}; the limit is {human_size(limit)} "
                f"(a spec may be at most {human_size(settings.UPLOAD_MAX_BYTES)})."
            )
            if is_api(request):
                return api_error(413, message)
            response = HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
            # The unread body would otherwise be parsed as the next request on a kept-alive link.
            response["Connection"] = "close"
            return response
        return get_response(request)

    return middleware


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
# What Django raises while reading or parsing a body: a charset other than UTF-8 on a form,
# too many fields or files, a broken multipart, a body longer than it said, a dropped link.
UNREADABLE = (BadRequest, SuspiciousOperation, MultiPartParserError, UnreadablePostError,
              ValueError)  # fmt: skip


def bad_request(request: HttpRequest, message: str) -> HttpResponse:
    if is_api(request):
        return api_error(400, message)
    return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")


def unreadable_body_as_400(get_response: GetResponse) -> GetResponse:
    """Parse a POSTed form once, before anything else reads it, and answer 400 if it cannot be.

    Left to Django, the CSRF check is the first to read the form; its error goes to the 400
    handler, which re-runs the CSRF check (Django's handlers are `requires_csrf_token`), which
    reads the form again and raises again: a 500. A form that failed here never reaches them.
    The API is left alone: its views read the raw body as JSON (which a parsed multipart would
    have consumed) and never the form, and they are exempt from the CSRF check.
    """

    def middleware(request: HttpRequest) -> HttpResponseBase:
        if request.method == "POST" and request.content_type in FORM_TYPES and not is_api(request):
            try:
                request.POST  # noqa: B018 (parsed and kept for every later reader)
            except UNREADABLE as error:
                logger.info("unreadable form body on %s: %r", request.path, error)
                return bad_request(
                    request,
                    "The form body cannot be read: send it as UTF-8 (no other charset), with "
                    f"at most {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields.",
                )
        return get_response(request)

    return middleware


ADMIN_PATHS = ("/admin/", "/django-rq/")


def no_nul_in_admin_queries(get_response: GetResponse) -> GetResponse:
    """The admin passes its list's query parameters (filters, search, ordering) to the database
    as they come; PostgreSQL refuses a NUL in a string with an error, a 500. No parameter of
    theirs can hold one: refuse it first. The site's own pages read theirs with care."""

    def middleware(request: HttpRequest) -> HttpResponseBase:
        if request.path.startswith(ADMIN_PATHS) and any(
            "\x00" in key or any("\x00" in value for value in values)
            for key, values in request.GET.lists()
        ):
            return bad_request(request, "A query parameter contains a NUL character.")
        return get_response(request)

    return middleware


def api_errors_as_json(get_response: GetResponse) -> GetResponse:
    def middleware(request: HttpRequest) -> HttpResponseBase:
        response = get_response(request)
        if (
            is_api(request)
            and response.status_code >= 400
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            json_response = api_error(response.status_code)
            for header in ("Allow", "Retry-After"):
                if header in response:
                    json_response[header] = response[header]
            return json_response
        return response

    return middleware


def content_security_policy(get_response: GetResponse) -> GetResponse:
    """Send CONTENT_SECURITY_POLICY (or its report-only form) on every response that has none."""
    header = (
        "Content-Security-Policy-Report-Only"
        if settings.CONTENT_SECURITY_POLICY_REPORT_ONLY
        else "Content-Security-Policy"
    )

    def middleware(request: HttpRequest) -> HttpResponseBase:
        response = get_response(request)
        if settings.CONTENT_SECURITY_POLICY and header not in response:
            response[header] = settings.CONTENT_SECURITY_POLICY
        return response

    return middleware


RQ_DASHBOARD_PATHS = ("/django-rq/", "/admin/django_rq/")
# ImproperlyConfigured: its scheduler pages raise it when rq-scheduler (not used here) is absent.
RQ_MISSING = (LookupError, NoSuchJobError, ValueError, ImproperlyConfigured)
# django-rq registers a table-less "dashboard" model in the admin: only its list page (which
# redirects to the dashboard) works; its add/change/delete/history pages query a missing table.
RQ_FAKE_MODEL_PAGES = re.compile(
    r"^/admin/django_rq/dashboard/(add|(?!(queues|workers|schedulers|cron-schedulers)/)"
    r"(?!stats\.json)[^/]+(/(change|delete|history))?)/$"
)


# The admin's "view on site" shortcut, /admin/r/<content type>/<object>/, which looks the object
# up in its model's table: the rq dashboard's model has none (OperationalError, a 503).
ADMIN_SHORTCUT = re.compile(r"^/admin/r/([0-9]{1,9})/")


def _shortcut_to_a_tableless_model(request: HttpRequest) -> bool:
    match = ADMIN_SHORTCUT.match(request.path)
    if match is None:
        return False
    try:
        model = ContentType.objects.get_for_id(int(match.group(1))).model_class()
    except ContentType.DoesNotExist:
        return False  # the shortcut's own 404
    return model is not None and not model._meta.managed


class RqDashboardLookupsAs404:
    """django-rq's staff dashboard indexes its queue list and fetches jobs without checking
    them, and its admin model has no table, so a stale or mistyped link (queue 3 of 1, a finished
    job) is a 500. Those are lookups of things that do not exist: answer 404. Only its URLs."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if RQ_FAKE_MODEL_PAGES.match(request.path) or _shortcut_to_a_tableless_model(request):
            return HttpResponseNotFound("The rq dashboard has no such page.")
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if request.path.startswith(RQ_DASHBOARD_PATHS) and isinstance(exception, RQ_MISSING):
            logger.warning("rq dashboard %s: %r", request.path, exception)
            return HttpResponseNotFound("No such queue, job, worker or scheduler.")
        return None
