"""Shared support for the tests that need a Docker engine and the scorer image (or the web one).

Without an engine (or without the image) these tests skip on a developer's machine but FAIL when
CI=true: CI (.ci/run) starts dockerd and builds the image, so a missing engine there is a broken
pipeline, not a reason to pass quietly.
"""

import os
import socket
import time
from pathlib import Path

import pytest

from evaluation.backends import container

IMAGE = os.environ.get("SCORER_DOCKER_IMAGE", "sysmobench-scorer:latest")
# The site's image (web, worker, reaper in compose.yaml); CI builds it too.
WEB_IMAGE = os.environ.get("WEB_IMAGE", "sysmobench-web:latest")
SPIN_SPEC = (
    Path(__file__).resolve().parent.parent / "tasks_data" / "spin" / "reference" / "spin.tla"
)


def unavailable(reason: str):
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"CI needs the Docker engine and the images of bin/build-images: {reason}")
    pytest.skip(reason)


def engine_with_image():
    """A client for the engine that has the scorer image (skip, or fail under CI, otherwise)."""
    try:
        client = container.docker_client()
    except container.ContainerError as exc:
        unavailable(str(exc))
    try:
        container.image_identity(client, IMAGE)
    except container.ContainerError as exc:
        unavailable(str(exc))
    return client


def engine_with_web_image():
    """A client for the engine that has the web image (skip, or fail under CI, otherwise)."""
    from docker.errors import ImageNotFound

    try:
        client = container.docker_client()
    except container.ContainerError as exc:
        unavailable(str(exc))
    try:
        client.images.get(WEB_IMAGE)
    except ImageNotFound:
        unavailable(f"the web image {WEB_IMAGE!r} is not on this engine (bin/build-images)")
    return client


def settings(**overrides) -> container.ContainerSettings:
    return container.ContainerSettings(image=IMAGE, **overrides)


def scorer_containers(client, run_label: str | None = None) -> list:
    wanted = [f"{container.LABEL}=1"]
    if run_label is not None:
        wanted.append(f"{container.RUN_LABEL}={run_label}")
    return client.containers.list(all=True, filters={"label": wanted})


def input_dirs(root: Path) -> list[Path]:
    return sorted(root.glob(f"{container.INPUT_PREFIX}*"))


def assert_nothing_left(client, run_label: str, input_root: Path) -> None:
    """No container of this run (removal is asynchronous in the engine: allow a moment), and no
    input directory."""
    for _ in range(20):
        if not scorer_containers(client, run_label):
            break
        time.sleep(0.25)
    assert scorer_containers(client, run_label) == []
    assert input_dirs(input_root) == []


def sleeping_container(client, run_label: str, deadline: float, worker_pid: int):
    """A running scorer container labelled as a run's would be (what a dead worker leaves)."""
    limits = container.Limits(wall_seconds=300, memory_mb=256, cpus=0.5, pids=16, tmpfs_mb=8)
    made = client.containers.create(
        IMAGE,
        entrypoint=["python", "-c", "import time; time.sleep(300)"],
        labels={
            container.LABEL: "1",
            container.RUN_LABEL: run_label,
            container.DEADLINE_LABEL: str(int(deadline)),
            container.WORKER_LABEL: f"{socket.gethostname()}:{worker_pid}",
        },
        **container.container_options(limits),
    )
    made.start()
    return made
