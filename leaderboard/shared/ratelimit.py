"""Per-address rate limits on Django's cache, and the 429 answer shared with the quotas.

A fixed window per (scope, client address): the first hit of a window creates its counter with
`cache.add`, every hit `cache.incr`s it. Both are atomic in Redis and in the local-memory cache,
so concurrent requests never both slip under the limit. The window's end is the Retry-After.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import wraps
from typing import Concatenate, ParamSpec

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render

from leaderboard.shared.errors import api_error

P = ParamSpec("P")


@dataclass
class Limited(Exception):
    """Over a limit: `message` says which, `retry_after` in how many seconds to try again."""

    message: str
    retry_after: int

    def when(self) -> str:
        moment = datetime.now(UTC) + timedelta(seconds=self.retry_after)
        return f"in {_duration(self.retry_after)} (after {moment:%H:%M} UTC)"


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    if seconds < 7200:
        return f"{math.ceil(seconds / 60)} minutes"
    return f"{math.ceil(seconds / 3600)} hours"


def client_ip(request: HttpRequest) -> str:
    """The client's address: the socket's, or the one RATE_LIMIT_PROXY_COUNT proxies vouch for.

    Each trusted proxy appends the address it saw, so the client is the entry that many places
    from the right; anything further left was written by the client and proves nothing.
    """
    proxies = settings.RATE_LIMIT_PROXY_COUNT
    forwarded: str = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies > 0 and forwarded:
        hops = [h.strip() for h in forwarded.split(",") if h.strip()]
        if hops:
            return hops[-min(proxies, len(hops))]
    socket_address: str = request.META.get("REMOTE_ADDR", "")
    return socket_address


def hit(scope: str, ident: str, rate: tuple[int, int] | None) -> None:
    """Count one request of `ident` against `rate` = (requests, seconds); raise Limited if over."""
    if rate is None:
        return
    limit, period = rate
    now = time.time()
    window = int(now // period)
    digest = hashlib.sha256(ident.encode()).hexdigest()[:32]
    key = f"ratelimit:{scope}:{digest}:{period}:{window}"
    cache.add(key, 0, timeout=period + 1)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr: this hit opens the next window
        cache.add(key, 1, timeout=period + 1)
        count = 1
    if count > limit:
        retry_after = max(1, math.ceil((window + 1) * period - now))
        raise Limited(
            LIMIT_MESSAGES[scope].format(limit=limit, period=_duration(period)), retry_after
        )


LIMIT_MESSAGES = {
    "signup": "Too many new accounts from your address ({limit} per {period}).",
    "login": "Too many sign-in attempts from your address ({limit} per {period}).",
    "upload": "Too many uploads from your address ({limit} per {period}).",
    "board": "Too many boards under new weights from your address ({limit} per {period}); "
    "a board already computed is served at once.",
}


def too_many_requests(
    request: HttpRequest, limited: Limited, as_json: bool = False
) -> HttpResponse:
    """The 429 answer: words that say when, and a Retry-After header that says the same."""
    text = f"{limited.message} Try again {limited.when()}."
    response: HttpResponse
    if as_json:
        response = api_error(429, text, retry_after=limited.retry_after)
    else:
        response = render(request, "429.html", {"message": text}, status=429)
    response["Retry-After"] = str(limited.retry_after)
    return response


def limit_posts(
    scope: str, setting: str, as_json: bool = False
) -> Callable[
    [Callable[Concatenate[HttpRequest, P], HttpResponseBase]],
    Callable[Concatenate[HttpRequest, P], HttpResponseBase],
]:
    """Count every POST to the view against the per-address rate named by `setting`."""

    def decorator(
        view: Callable[Concatenate[HttpRequest, P], HttpResponseBase],
    ) -> Callable[Concatenate[HttpRequest, P], HttpResponseBase]:
        @wraps(view)
        def wrapped(request: HttpRequest, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponseBase:
            if request.method == "POST":
                try:
                    hit(scope, client_ip(request), getattr(settings, setting))
                except Limited as limited:
                    return too_many_requests(request, limited, as_json)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
