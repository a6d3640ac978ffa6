"""Run pages: drill-down, window permalinks, live status, exports, upload and compare."""

import csv

from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET

from leaderboard import compare as comparing
from leaderboard import drilldown
from leaderboard.forms import SubmitForm
from leaderboard.models import Run, WindowResult
from leaderboard.queueing import enqueue_run, queue_position
from leaderboard.run_export import CSV_COLUMNS, run_as_dict, run_csv_rows, run_summary


def _run(pk: int) -> Run:
    return get_object_or_404(Run.objects.select_related("model", "task"), pk=pk)


def _position(run: Run) -> int | None:
    return queue_position(run) if run.status == Run.Status.QUEUED else None


@require_GET
def run_detail(request, pk: int):
    run = _run(pk)
    context = drilldown.run_page(run, expand_action=request.GET.get("all_windows"))
    context["queue_position"] = _position(run)
    return render(request, "leaderboard/run_detail.html", context)


@require_GET
def window_detail(request, pk: int, window_pk: int):
    run = _run(pk)
    window = get_object_or_404(WindowResult, pk=window_pk, phase_result__run=run)
    context = {"run": run, "window": window, "rows": drilldown.window_rows(window)}
    return render(request, "leaderboard/run_window.html", context)


@require_GET
def run_status(request, pk: int):
    run = _run(pk)
    return JsonResponse(run_summary(run, _position(run)))


@require_GET
def run_export_json(request, pk: int):
    response = JsonResponse(run_as_dict(_run(pk)), json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="run-{pk}.json"'
    return response


@require_GET
def run_export_csv(request, pk: int):
    run = _run(pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="run-{pk}.csv"'
    writer = csv.writer(response)
    writer.writerow(CSV_COLUMNS)
    writer.writerows(run_csv_rows(run))
    return response


def submit(request):
    if request.method == "POST":
        form = SubmitForm(request.POST, request.FILES)
        if form.is_valid():
            run = form.save(submitter=request.user)
            enqueue_run(run)
            return redirect(run)
    else:
        source_id = request.GET.get("from", "")
        source = Run.objects.filter(pk=source_id).first() if source_id.isdigit() else None
        # ?task= and ?model= come from "submit a spec" links on task and model pages.
        initial = SubmitForm.initial_from(source) or {
            "task": request.GET.get("task"),
            "model": request.GET.get("model"),
        }
        form = SubmitForm(initial=initial)
    return render(request, "leaderboard/submit.html", {"form": form})


@require_GET
def compare(request):
    context = comparing.compare_from_query(request.GET)
    return render(request, "leaderboard/compare.html", context)
