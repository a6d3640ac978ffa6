"""A scorer image built from other code than the worker runs is refused before any container
starts (docs/decisions/0034-scorer-container.md): before, every container run of a stale image
failed with an obscure error.
The image carries the digest of the `evaluation/` it was built from (bin/build-images); a
mismatch, or no label at all, fails the run as the machine's failure, with the advice to
rebuild, and is not retried as if it were transient."""

import io
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

import evaluation
from evaluation.backends import container
from evaluation.backends.stamp import (
    CODE_LABEL,
    ImageMismatch,
    code_digest,
    image_mismatch,
    running_code,
)
from evaluation.inputs.contracts import load_contract
from leaderboard.models import Run
from leaderboard.scoring.jobs import evaluate_run
from tests.docker_support import IMAGE, SPIN_SPEC, scorer_containers, unavailable
from tests.test_job_lifecycle import queued_run, spin_task

CODE = "c0de" * 16
OTHER = "0123" * 16

# --------------------------------------------------------------- the comparison, without docker


def test_an_image_stamped_with_the_running_code_passes():
    assert image_mismatch("scorer", {CODE_LABEL: CODE, "other": "x"}, CODE) is None


def test_an_image_built_from_other_code_is_a_mismatch_naming_both():
    mismatch = image_mismatch("scorer", {CODE_LABEL: OTHER}, CODE)
    assert mismatch == ImageMismatch(image="scorer", built_from=OTHER, running=CODE)
    assert f"label {OTHER}, code {CODE}" in mismatch.advice()
    assert "bin/build-images scorer" in mismatch.advice()


@pytest.mark.parametrize("labels", [None, {}, {CODE_LABEL: ""}, {"org.other": CODE}])
def test_an_image_without_the_stamp_is_a_mismatch(labels):
    mismatch = image_mismatch("scorer", labels, CODE)
    assert mismatch is not None and mismatch.built_from is None


def test_the_digest_follows_every_file_of_the_package_but_not_compiled_ones(tmp_path):
    (tmp_path / "pipeline.py").write_text("SCORER_VERSION = '3.1.0'\n")
    (tmp_path / "phases").mkdir()
    (tmp_path / "phases" / "runtime.py").write_text("BUDGET = 60\n")
    before = code_digest(tmp_path)
    # Compiled files: the image makes its own, a worker may have none.
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "pipeline.cpython-311.pyc").write_bytes(b"\0")
    assert code_digest(tmp_path) == before
    # A change of code without a change of SCORER_VERSION is still another image.
    (tmp_path / "phases" / "runtime.py").write_text("BUDGET = 61\n")
    changed = code_digest(tmp_path)
    assert changed != before
    # Moving a file is a change too.
    (tmp_path / "phases" / "runtime.py").rename(tmp_path / "runtime.py")
    assert code_digest(tmp_path) not in {before, changed}


def test_the_running_code_is_the_digest_of_the_evaluation_package():
    assert running_code() == code_digest(Path(evaluation.__file__).parent)


# ------------------------------------------------------------------- the job, without docker


def _engine_with(labels):
    """An engine that holds only the scorer image with `labels` and cannot start containers:
    a container start would be an AttributeError, not a refusal."""
    image = SimpleNamespace(id="sha256:" + "ab" * 32, labels=labels, attrs={"RepoDigests": []})
    return SimpleNamespace(images=SimpleNamespace(get=lambda name: image))


@pytest.mark.django_db
def test_a_run_on_a_stale_image_fails_at_once_with_the_advice(monkeypatch, settings):
    settings.SCORER_BACKEND, settings.SCORING_MAX_ATTEMPTS = "docker", 3
    run = queued_run(spin_task())
    monkeypatch.setattr(container, "docker_client", lambda: _engine_with({CODE_LABEL: OTHER}))
    assert evaluate_run(run.pk) == Run.Status.FAILED
    run.refresh_from_db()
    # Not re-queued as a transient failure of the machine would be, and nothing scored.
    assert (run.status, run.attempts, run.overall) == (Run.Status.FAILED, 1, None)
    assert not run.phase_results.exists()
    assert f"label {OTHER}, code {running_code()}" in run.failure_reason
    assert "run bin/build-images scorer" in run.failure_reason


# ------------------------------------------------------------------- the engine, with docker


@pytest.fixture
def labelled_image():
    """Tags of images made from the scorer image with other labels (never the shared tag)."""
    from docker.errors import ImageNotFound

    try:
        client = container.docker_client()
        client.images.get(IMAGE)
    except (container.ContainerError, ImageNotFound) as exc:
        unavailable(f"no engine with the scorer image {IMAGE!r}: {exc}")
    made: list[str] = []

    def make(code: str | None) -> str:
        tag = f"sysmobench-stamp-test:{uuid.uuid4().hex[:12]}"
        # An empty value stands for no label: the scorer image's own label (CI's image has the
        # right one) would otherwise be inherited.
        dockerfile = f'FROM {IMAGE}\nLABEL {CODE_LABEL}="{code or ""}"\n'.encode()
        client.images.build(fileobj=io.BytesIO(dockerfile), tag=tag, rm=True)
        made.append(tag)
        return tag

    yield client, make
    for tag in made:
        client.images.remove(tag, force=True)


def _score(client, tag):
    return container.score_in_container(
        SPIN_SPEC.read_text(),
        load_contract("spin"),
        [],
        settings=container.ContainerSettings(image=tag),
        client=client,
        run_label=f"stamp-test-{tag.rpartition(':')[2]}",
    )


@pytest.mark.docker
def test_the_engine_s_image_label_is_compared_before_a_container_starts(labelled_image):
    client, make = labelled_image
    for code in (OTHER, None):
        tag = make(code)
        with pytest.raises(container.StaleScorerImage) as refused:
            _score(client, tag)
        assert refused.value.mismatch.built_from == code
        assert refused.value.mismatch.running == running_code()
        assert scorer_containers(client, f"stamp-test-{tag.rpartition(':')[2]}") == []
    current = make(running_code())
    assert container.image_identity(client, current)["scorer_image_id"].startswith("sha256:")
