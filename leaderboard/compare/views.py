"""The compare page: two models or two runs side by side (`?a=&b=` or `?run_a=&run_b=`)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from leaderboard.compare import overview


@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    context = overview.compare_from_query(request.GET, request.user)
    return render(request, "leaderboard/compare.html", context)
