"""Twenty runs scored in twenty containers at once all finish, and leave nothing behind."""

import threading

import pytest

from evaluation import cli
from evaluation.backends import container
from tests.docker_support import assert_nothing_left, settings

pytestmark = [pytest.mark.tla, pytest.mark.docker]

RUNS = 20


def test_twenty_concurrent_container_runs_all_finish(docker_client, tmp_path):
    contract = cli.load_task("mutex", cli.default_tasks_dir())
    # A module that parses up to one definition: P1 runs SANY on the module and per definition,
    # the rest is gated, so each run is short but goes through the whole container path.
    spec = "---- MODULE mutex ----\nVARIABLE x\nInit == x = 0\nNext == x' = \n====\n"
    reports, errors = [None] * RUNS, []

    def work(i):
        try:
            reports[i] = container.score_in_container(
                spec,
                contract,
                [],
                settings=settings(input_root=str(tmp_path), tmpfs_mb=64),
                run_label=f"many-{i}",
                client=container.docker_client(),  # one connection per thread
            )
        except container.ContainerError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(RUNS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert [r.outcomes["syntax"].status for r in reports] == ["ran"] * RUNS
    assert {r.outcomes["syntax"].score for r in reports} == {reports[0].outcomes["syntax"].score}
    assert 0 < reports[0].outcomes["syntax"].score < 1
    assert [r.outcomes["runtime"].status for r in reports] == ["skipped"] * RUNS
    for i in range(RUNS):
        assert_nothing_left(docker_client, f"many-{i}", tmp_path)
