"""Which backend scores a run (settings.SCORER_BACKEND) and the site's side of each.

- `local`: `evaluation.pipeline.score_spec` in the worker process, each SANY/TLC call in its own
  sandbox (evaluation/tla/sandbox/).
- `docker`: the whole run in one container of the scorer image
  (`evaluation.backends.container`); the fingerprint then also names the image's id, shown on
  the run page.

Both call `on_phase(outcome)` as each phase finishes and return the same `ScoreReport`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.conf import settings

from evaluation import surface
from evaluation.surface import Adapter, Contract, PhaseOutcome, ScoreReport, Window
from leaderboard.models import Run

# The docker backend could not score the run (engine down, image missing, deadline, memory);
# the message is for the submitter.
ScorerUnavailable = surface.ContainerError


def container_settings() -> surface.ContainerSettings:
    return surface.ContainerSettings(
        image=settings.SCORER_DOCKER_IMAGE,
        cpus=settings.SCORER_DOCKER_CPUS,
        pids=settings.SCORER_DOCKER_PIDS,
        tmpfs_mb=settings.SCORER_DOCKER_TMPFS_MB,
        input_root=settings.SCORER_DOCKER_INPUT_DIR,
        max_seconds=settings.SCORER_DOCKER_MAX_SECONDS,
    )


def score_run(
    run: Run,
    contract: Contract,
    adapter: Adapter,
    windows: list[Window],
    on_phase: Callable[[PhaseOutcome], None],
    heldout_windows: list[Window] | None = None,
) -> ScoreReport:
    if settings.SCORER_BACKEND == "docker":
        return surface.score_in_container(
            run.spec_text,
            contract,
            windows,
            heldout_windows=heldout_windows,
            adapter_text=run.adapter_text,
            cfg_text=run.cfg_text or None,
            settings=container_settings(),
            on_phase=on_phase,
            run_label=run_label(run),
        )
    report = surface.score_spec(
        run.spec_text,
        contract,
        windows,
        adapter=adapter,
        on_phase=on_phase,
        cfg_text=run.cfg_text or None,
        heldout_windows=heldout_windows,
    )
    report.fingerprint["scorer_backend"] = "local"
    return report


def site_tag() -> str:
    """Which site's database the runs belong to. Sites, test runs and benches may share one Docker
    engine: each reaper judges only the containers of its own runs (run pk 8 of one database is
    not run pk 8 of another)."""
    db = settings.DATABASES["default"]
    where = f"{db.get('ENGINE')}|{db.get('HOST') or ''}|{db.get('PORT') or ''}|{db.get('NAME')}"
    return hashlib.sha256(where.encode()).hexdigest()[:12]


def run_label(run: Run) -> str:
    """`<site>-<run pk>.<attempt>`: the container of one attempt (a re-queued run gets a new
    one) of one site's run."""
    return f"{site_tag()}-{run.pk}.{run.attempts}"


def attempt_is_live(label: str) -> bool:
    """Whether the attempt a container was started for is still the one being scored. A
    container of an attempt whose worker died (the run was re-queued, failed or finished
    since) is a leftover wherever that worker ran; another site's container, and labels of
    another shape, are judged by their deadline and worker only."""
    site, dash, attempt_label = label.rpartition("-")
    if dash and site != site_tag():
        return True
    pk, _, attempt = attempt_label.partition(".")
    if not (pk.isascii() and pk.isdigit() and attempt.isascii() and attempt.isdigit()):
        return True
    running = Run.objects.filter(pk=int(pk), status=Run.Status.RUNNING, attempts=int(attempt))
    return running.exists()


def reap_containers() -> dict[str, list[str]] | None:
    """Leftover scorer containers and input folders removed (None: the docker backend is off)."""
    if settings.SCORER_BACKEND != "docker":
        return None
    return surface.reap_containers(
        input_root=settings.SCORER_DOCKER_INPUT_DIR, is_live=attempt_is_live
    )
