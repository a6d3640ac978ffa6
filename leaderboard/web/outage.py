"""A database outage answers 503 with Retry-After, on the site and the API, never a bare 500.

`DatabaseOutageAs503` turns a view's lost or refused connection (django.db OperationalError or
InterfaceError) into that answer; `server_error` (the site's handler500) does the same for one
raised outside a view, in a middleware. The page is rendered without the request's context: its
context processors read the signed-in user, which needs the database that is down.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.template.loader import render_to_string
from django.views import defaults

from leaderboard.shared.errors import api_error, is_api

log = logging.getLogger(__name__)

# As in leaderboard/web/middleware.py; a service does not import an entry point.
GetResponse = Callable[[HttpRequest], HttpResponseBase]

DATABASE_DOWN = (OperationalError, InterfaceError)
# A PostgreSQL restart takes seconds; half a minute is an honest first "try again".
RETRY_AFTER_SECONDS = 30
MESSAGE = "The database is unreachable for a moment; nothing was changed. Retry shortly."


def outage_response(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        response: HttpResponse = api_error(503, MESSAGE, code="database_unavailable")
    else:
        page = render_to_string("503.html", {"message": MESSAGE, "retry": RETRY_AFTER_SECONDS})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseOutageAs503:
    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, DATABASE_DOWN):
            log.error("database unreachable on %s: %s", request.path, exception)
            return outage_response(request)
        return None


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: Django calls it while the exception is being handled, so it is at hand."""
    if isinstance(sys.exc_info()[1], DATABASE_DOWN):
        return outage_response(request)
    return defaults.server_error(request)
