"""The compare page: two models or two runs side by side (`?a=&b=` or `?run_a=&run_b=`), and
the same comparison as CSV or JSON (`/compare.csv`, `/compare.json`, same query)."""

import csv

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from leaderboard.compare import export, overview
from leaderboard.shared.csv_safe import safe_row
from leaderboard.shared.errors import api_error

NOTHING_TO_EXPORT = "Name two models (?a=&b=, by slug) or two runs of one task (?run_a=&run_b=)."


@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    context = overview.compare_from_query(request.GET, request.user)
    return render(request, "leaderboard/compare.html", context)


@require_GET
def compare_export(request: HttpRequest, fmt: str) -> HttpResponse:
    context = overview.compare_from_query(request.GET, request.user)
    if context["mode"] is None:
        message = context["error"] or NOTHING_TO_EXPORT
        if fmt == "json":
            # The API's one error shape, so a script reads compare.json's errors as the API's.
            return api_error(400, message, code=context["error_code"] or "missing_parameters")
        return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
    name = f"compare-{context['a'].slug or 'a'}-{context['b'].slug or 'b'}"
    if context["mode"] == "runs":
        name = f"compare-run-{context['run_a'].pk}-run-{context['run_b'].pk}"
    if fmt == "json":
        response: HttpResponse = JsonResponse(
            export.as_json(context), json_dumps_params={"indent": 1}
        )
    else:
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        writer = csv.writer(response)
        writer.writerow(export.CSV_COLUMNS)
        writer.writerows(safe_row(row) for row in export.csv_rows(context))
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return response
