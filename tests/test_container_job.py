"""With SCORER_BACKEND=docker the scoring job scores in a container and the run page says which."""

import os
import time
from contextlib import suppress
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.urls import reverse
from docker.errors import NotFound

from evaluation.inputs.contracts import load_contract
from leaderboard.models import Run
from leaderboard.scoring.backends import reap_containers, run_label, site_tag
from leaderboard.scoring.jobs import evaluate_run
from leaderboard.tasks.importing import import_corpus, sync_task
from tests.base import make_model, make_run
from tests.docker_support import (
    IMAGE,
    SPIN_SPEC,
    assert_nothing_left,
    scorer_containers,
    sleeping_container,
)

pytestmark = [pytest.mark.tla, pytest.mark.docker, pytest.mark.django_db]


@pytest.fixture
def docker_backend(settings, docker_client, tmp_path):
    settings.SCORER_BACKEND = "docker"
    settings.SCORER_DOCKER_IMAGE = IMAGE
    settings.SCORER_DOCKER_INPUT_DIR = str(tmp_path)
    return docker_client


def _spin_run():
    contract = load_contract("spin")
    task, _ = sync_task(contract)
    import_corpus(task, contract, Path(django_settings.SYSMOBENCH_DATA_DIR))
    return make_run(make_model(), task, spec_text=SPIN_SPEC.read_text())


def test_a_spin_upload_is_scored_in_a_container_and_the_page_shows_the_image(
    docker_backend, client, tmp_path
):
    run = _spin_run()
    assert evaluate_run(run.pk) == Run.Status.FINISHED
    run.refresh_from_db()
    assert run.overall == pytest.approx(1.0)
    assert run.fingerprint["scorer_backend"] == "docker"
    image_id = docker_backend.images.get(IMAGE).id
    assert run.fingerprint["scorer_image_id"] == image_id
    assert sorted(run.phase_results.values_list("phase", flat=True)) == sorted(
        ["syntax", "runtime", "conformance", "invariant"]
    )
    # Each of the 304 windows and its symmetry probe (spin's threads are symmetric).
    probes = 2 if load_contract("spin").traces.symmetric_actors else 1
    assert run.phase_results.get(phase="conformance").window_results.count() == 304 * probes
    page = client.get(reverse("run_detail", args=[run.pk])).content.decode()
    assert "Scored in its own container" in page and image_id in page
    assert_nothing_left(docker_backend, run_label(run), tmp_path)


def test_a_missing_image_fails_the_run_with_a_reason_and_loses_nothing(docker_backend, settings):
    settings.SCORER_DOCKER_IMAGE = "sysmobench-scorer:no-such-tag"
    run = _spin_run()
    assert evaluate_run(run.pk) == Run.Status.FAILED
    run.refresh_from_db()
    assert "sysmobench-scorer:no-such-tag" in run.failure_reason
    assert "bin/build-images" in run.failure_reason
    assert run.spec_text == SPIN_SPEC.read_text()


def test_the_reaper_removes_the_container_of_an_attempt_whose_worker_died(docker_backend):
    # Attempt 1's worker died on some other machine (its pid means nothing here) and the run was
    # re-queued and claimed again: attempt 2 is being scored now.
    run = _spin_run()
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, attempts=2)
    far = time.time() + 600
    site = site_tag()
    stale = sleeping_container(docker_backend, f"{site}-{run.pk}.1", far, os.getpid())
    current = sleeping_container(docker_backend, f"{site}-{run.pk}.2", far, os.getpid())
    # Another site's run of the same pk, on the same engine: not this reaper's to judge.
    other = sleeping_container(docker_backend, f"0ther0site00-{run.pk}.1", far, os.getpid())
    try:
        removed = reap_containers()
        assert removed["containers"] == [stale.name]
        current_label = f"{site}-{run.pk}.2"
        assert [c.name for c in scorer_containers(docker_backend, current_label)] == [current.name]
        assert scorer_containers(docker_backend, f"0ther0site00-{run.pk}.1") != []
        Run.objects.filter(pk=run.pk).update(status=Run.Status.FAILED)
        assert reap_containers()["containers"] == [current.name]
    finally:
        for made in (stale, current, other):
            with suppress(NotFound):
                made.remove(force=True)
