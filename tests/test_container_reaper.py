"""The reaper removes scorer containers and input folders a dead worker left, and only those."""

import os
import socket
import subprocess
import time

import pytest

from evaluation import container
from tests.docker_support import IMAGE, scorer_containers

pytestmark = [pytest.mark.docker]

SLEEP = ["python", "-c", "import time; time.sleep(300)"]


def _leftover(client, name: str, deadline: float, worker_pid: int):
    limits = container.Limits(wall_seconds=300, memory_mb=256, cpus=0.5, pids=16, tmpfs_mb=8)
    made = client.containers.create(
        IMAGE,
        entrypoint=SLEEP,
        name=f"sysmobench-reaper-test-{name}-{os.getpid()}",
        labels={
            container.LABEL: "1",
            container.RUN_LABEL: f"reap-{name}",
            container.DEADLINE_LABEL: str(int(deadline)),
            container.WORKER_LABEL: f"{socket.gethostname()}:{worker_pid}",
        },
        **container.container_options(limits),
    )
    made.start()
    return made


def test_reaper_removes_leftovers_by_label_and_keeps_live_runs(docker_client, tmp_path):
    now = time.time()
    dead = subprocess.Popen(["true"])
    dead.wait()
    past = _leftover(docker_client, "past", now - 5, os.getpid())
    orphan = _leftover(docker_client, "orphan", now + 600, dead.pid)
    live = _leftover(docker_client, "live", now + 600, os.getpid())
    old_input = tmp_path / f"{container.INPUT_PREFIX}old"
    new_input = tmp_path / f"{container.INPUT_PREFIX}new"
    old_input.mkdir()
    new_input.mkdir()
    os.utime(old_input, (now - 4 * 3600, now - 4 * 3600))
    try:
        removed = container.reap_containers(docker_client, input_root=str(tmp_path))
        assert sorted(removed["containers"]) == sorted([past.name, orphan.name])
        assert removed["inputs"] == [str(old_input)]
        assert [c.name for c in scorer_containers(docker_client, "reap-live")] == [live.name]
        assert scorer_containers(docker_client, "reap-past") == []
        assert scorer_containers(docker_client, "reap-orphan") == []
        assert new_input.exists()
    finally:
        live.remove(force=True)
