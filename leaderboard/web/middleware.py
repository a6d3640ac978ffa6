"""Request guards: the body cap, the API's JSON errors, the rq dashboard's missing lookups."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.http.response import HttpResponseBase
from rq.exceptions import NoSuchJobError

from leaderboard.api.errors import api_error, is_api
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


class RqDashboardLookupsAs404:
    """django-rq's staff dashboard indexes its queue list and fetches jobs without checking
    them, and its admin model has no table, so a stale or mistyped link (queue 3 of 1, a finished
    job) is a 500. Those are lookups of things that do not exist: answer 404. Only its URLs."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if RQ_FAKE_MODEL_PAGES.match(request.path):
            return HttpResponseNotFound("The rq dashboard has no such page.")
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if request.path.startswith(RQ_DASHBOARD_PATHS) and isinstance(exception, RQ_MISSING):
            logger.warning("rq dashboard %s: %r", request.path, exception)
            return HttpResponseNotFound("No such queue, job, worker or scheduler.")
        return None
