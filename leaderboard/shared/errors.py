"""The API's one error shape: {"error": {"code", "message", "fields"}} with a matching status.

Every error of the API answers in it, including those Django raises before or around a view
(unknown URL, wrong method, a body over the cap): `ApiErrorsAsJson` rewrites any non-JSON error
response under /api/, so a client never has to parse an HTML page.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse

CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "body_too_large",
    429: "rate_limited",
    500: "server_error",
}
MESSAGES = {
    400: "The request is malformed.",
    401: "Send a valid API token: Authorization: Bearer <token>.",
    403: "This token may not do that.",
    404: "No such resource (or it is another account's private run).",
    405: "This URL does not take that method.",
    413: "The request body is larger than the limit.",
    429: "Too many requests; retry later.",
    500: "The server failed; the maintainers have the details.",
}


def api_error(
    status: int,
    message: str = "",
    fields: dict[str, Any] | None = None,
    code: str = "",
    **extra: Any,
) -> JsonResponse:
    body = {
        "code": code or CODES.get(status, "error"),
        "message": message or MESSAGES.get(status, "The request failed."),
        "fields": fields or {},
        **extra,
    }
    return JsonResponse({"error": body}, status=status)


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")
