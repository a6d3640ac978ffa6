"""The docker backend scores exactly like the local one, inside the promised isolation."""

import pytest

from evaluation import cli
from evaluation.backends.container import USER, limits_for, score_in_container
from evaluation.pipeline import score_spec
from tests.docker_support import (
    SPIN_SPEC,
    assert_nothing_left,
    settings,
)

pytestmark = [pytest.mark.tla, pytest.mark.docker]


def _spin():
    contract = cli.load_task("spin", cli.default_tasks_dir())
    return contract, cli.cut(contract, cli.default_data_dir())


def _verdicts(outcomes):
    return {
        name: (
            o.status,
            o.score,
            [(a.action, a.passed, a.total) for a in o.actions],
            sorted((w.window_id, w.verdict) for w in o.windows),
            sorted((i.name, i.verdict) for i in o.invariants),
        )
        for name, o in outcomes.items()
    }


def test_spin_reference_scores_the_same_through_both_backends(docker_client, tmp_path):
    contract, windows = _spin()
    spec = SPIN_SPEC.read_text()
    local = score_spec(spec, contract, windows)
    seen, host_config = [], {}

    def on_phase(outcome):
        seen.append(outcome.phase)
        if not host_config:  # the container is running now: look at how it was started
            (running,) = docker_client.containers.list(filters={"label": "org.sysmobench.run=eq"})
            host_config.update(running.attrs["HostConfig"], User=running.attrs["Config"]["User"])

    report = score_in_container(
        spec,
        contract,
        windows,
        settings=settings(input_root=str(tmp_path)),
        on_phase=on_phase,
        run_label="eq",
        client=docker_client,
    )
    assert report.overall == local.overall == pytest.approx(1.0)
    assert _verdicts(report.outcomes) == _verdicts(local.outcomes)
    assert seen == ["syntax", "runtime", "conformance", "invariant"]
    same = {k for k in local.fingerprint if k != "java_version"}
    assert {k: report.fingerprint[k] for k in same} == {k: local.fingerprint[k] for k in same}
    assert report.fingerprint["scorer_backend"] == "docker"
    assert report.fingerprint["scorer_image_id"].startswith("sha256:")

    limits = limits_for(contract, settings())
    assert host_config["NetworkMode"] == "none"
    assert host_config["ReadonlyRootfs"] is True
    assert host_config["CapDrop"] == ["ALL"]
    assert host_config["SecurityOpt"] == ["no-new-privileges"]
    assert host_config["User"] == USER
    assert host_config["PidsLimit"] == limits.pids
    assert host_config["Memory"] == limits.memory_mb * 1024 * 1024
    assert host_config["NanoCpus"] == int(limits.cpus * 1e9)
    assert "size=" in host_config["Tmpfs"]["/tmp"]
    assert [m.split(":")[-1] for m in host_config["Binds"]] == ["ro"]
    assert_nothing_left(docker_client, "eq", tmp_path)
