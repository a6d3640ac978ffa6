"""The reaper removes scorer containers and input folders a dead worker left, and only those."""

import os
import subprocess
import time

import pytest

from evaluation.backends import container
from tests.docker_support import scorer_containers, sleeping_container

pytestmark = [pytest.mark.docker]


def test_reaper_removes_leftovers_by_label_and_keeps_live_runs(docker_client, tmp_path):
    now = time.time()
    dead = subprocess.Popen(["true"])
    dead.wait()
    past = sleeping_container(docker_client, "reap-past", now - 5, os.getpid())
    orphan = sleeping_container(docker_client, "reap-orphan", now + 600, dead.pid)
    live = sleeping_container(docker_client, "reap-live", now + 600, os.getpid())
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
