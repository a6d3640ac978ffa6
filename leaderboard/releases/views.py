"""Release pages: the list, one release (components, changelog, BibTeX), its rescoring diff, its
dataset; and a run's bundle. Runs are read through `visible_to`, as on the run page."""

from __future__ import annotations

from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from leaderboard.models import Release, Run
from leaderboard.releases import artifacts, citation, rescoring
from leaderboard.releases.identity import RELEASE_NAME
from leaderboard.shared.plain_words import dated_banner


def board_release(request: HttpRequest) -> Release | None:
    """The release `?release=NAME` names (404 for an unknown one); None: the board's default."""
    name = request.GET.get("release", "").strip()
    if not name:
        return None
    fits = RELEASE_NAME.fullmatch(name)
    release = Release.objects.filter(name=name).first() if fits else None
    if release is None:
        raise Http404(f"No release named {name!r}.")
    return release


def _summary(release: Release, default: Release | None) -> dict:
    return {
        "name": release.name,
        "identity": release.identity,
        "created_at": release.created_at.isoformat(),
        "approved": release.approved,
        "approved_at": release.approved_at.isoformat() if release.approved_at else None,
        "board_default": default is not None and default.pk == release.pk,
        "changelog": release.changelog,
        "scorer_version": release.components.get("scorer_version"),
        "url": release.get_absolute_url(),
    }


@require_GET
def release_list(request: HttpRequest) -> HttpResponse:
    default = Release.board_default()
    releases = [_summary(r, default) for r in Release.objects.all()]
    return render(request, "leaderboard/release_list.html", {"releases": releases})


@require_GET
def release_list_json(request: HttpRequest) -> JsonResponse:
    default = Release.board_default()
    releases = [_summary(r, default) for r in Release.objects.all()]
    return JsonResponse({"releases": releases, "board_default": default.name if default else None})


@require_GET
def release_detail(request: HttpRequest, name: str) -> HttpResponse:
    release = get_object_or_404(Release, name=name)
    context = {
        "release": release,
        "summary": _summary(release, Release.board_default()),
        "tasks": sorted(release.components.get("tasks", {}).items()),
        "tools": [
            (key, dated_banner(value) if isinstance(value, str) else value)
            for key, value in sorted(release.components.get("tools", {}).items())
        ],
        "bibtex": citation.bibtex(release, request.build_absolute_uri(release.get_absolute_url())),
        "run_count": Run.objects.public().finished().filter(release=release).count(),
    }
    return render(request, "leaderboard/release_detail.html", context)


@require_GET
def release_diff(request: HttpRequest, name: str) -> HttpResponse:
    release = get_object_or_404(Release, name=name)
    rows = rescoring.diff(release)
    context = {
        "release": release,
        "rows": rows,
        "moved": sum(1 for r in rows if r["moved"]),
        "progress": rescoring.progress(release),
    }
    return render(request, "leaderboard/release_diff.html", context)


@require_GET
def release_diff_json(request: HttpRequest, name: str) -> JsonResponse:
    release = get_object_or_404(Release, name=name)
    progress = rescoring.progress(release)
    return JsonResponse(
        {
            "release": release.name,
            "approved": release.approved,
            "progress": {
                "pending": progress.pending,
                "done": progress.done,
                "failed": progress.failed,
            },
            "runs": rescoring.diff(release),
        }
    )


@require_GET
def release_dataset(request: HttpRequest, name: str) -> StreamingHttpResponse:
    release = get_object_or_404(Release, name=name)
    response = StreamingHttpResponse(
        artifacts.dataset_lines(release), content_type="application/x-ndjson"
    )
    response["Content-Disposition"] = f'attachment; filename="sysmobench-{release.name}.jsonl"'
    return response


@require_GET
def release_heldout(request: HttpRequest, name: str) -> HttpResponse:
    """A retired release's held-out traces; nothing (404) before it is retired: they are the
    test set nobody has seen until then."""
    release = get_object_or_404(Release, name=name, retired_at__isnull=False)
    if not release.heldout_archive:
        raise Http404("this release was scored without held-out traces")
    response = HttpResponse(bytes(release.heldout_archive), content_type="application/zip")
    response["Content-Disposition"] = (
        f'attachment; filename="sysmobench-{release.name}-heldout.zip"'
    )
    return response


@require_GET
def run_bundle(request: HttpRequest, pk: int) -> HttpResponse:
    runs = Run.objects.visible_to(request.user).select_related(
        "model", "task", "submitter", "release"
    )
    run = get_object_or_404(runs, pk=pk)
    response = HttpResponse(artifacts.bundle(run), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-bundle.zip"'
    return response
