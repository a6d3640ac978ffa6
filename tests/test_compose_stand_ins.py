"""The stand-ins for compose's db and redis images (`bin/build-images postgres redis`) do what
compose.yaml asks of the official images: the `environment` (POSTGRES_*) makes the database and
its password login, the `command` (redis-server --appendonly yes) is honoured, the
`healthcheck` commands pass, the data lives in the volume (a new container on it finds it), and
each server runs as its own unprivileged user, answering on the container's network address.

CI builds the stand-ins with the other images (.ci/run: `bin/build-images scorer web postgres
redis`, 18 s once the local base exists), so under CI=true a missing engine or stand-in fails
these tests, as tests/docker_support.py's; elsewhere they skip. The stand-ins are for machines
that cannot pull the official images, where bench/compose_trials.py runs compose on them.
"""

import os
import re
import time
import uuid
from pathlib import Path

import pytest
import yaml

from tests.docker_support import unavailable

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_IMAGE = os.environ.get("POSTGRES_STAND_IN_IMAGE", "sysmobench/postgres-stand-in:latest")
REDIS_IMAGE = os.environ.get("REDIS_STAND_IN_IMAGE", "sysmobench/redis-stand-in:latest")
LABEL = "org.sysmobench.test"  # everything these tests make carries it, for cleaning up
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())


def _defaults(value):
    """compose.yaml's `${NAME:-default}` with nothing set, as compose reads it."""
    if isinstance(value, str):
        return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)
    if isinstance(value, list):
        return [_defaults(v) for v in value]
    if isinstance(value, dict):
        return {k: _defaults(v) for k, v in value.items()}
    return value


DB = _defaults(COMPOSE["services"]["db"])
REDIS = _defaults(COMPOSE["services"]["redis"])


@pytest.fixture
def engine():
    """The Docker engine with both stand-ins (skip when either is missing; fail under CI)."""
    import docker
    from docker.errors import DockerException, ImageNotFound

    try:
        client = docker.from_env(timeout=120)
        client.ping()
    except DockerException as exc:
        unavailable(f"no Docker engine answers ({exc})")
    for image in (POSTGRES_IMAGE, REDIS_IMAGE):
        try:
            client.images.get(image)
        except ImageNotFound:
            unavailable(f"no stand-in image {image} (bin/build-images postgres redis makes it)")
    made: list = []
    yield client, made
    for thing in reversed(made):  # containers, then the volumes they used
        try:
            thing.remove(force=True)
        except DockerException:
            pass
    client.close()


def _volume(client, made):
    volume = client.volumes.create(f"stand-in-test-{uuid.uuid4().hex[:10]}", labels={LABEL: "1"})
    made.insert(0, volume)  # removed after every container
    return volume


def _start(client, made, image, *, environment=None, command=None, mount=None, port=None):
    container = client.containers.run(
        image,
        command=command,
        environment=environment or {},
        volumes={mount[0].name: {"bind": mount[1], "mode": "rw"}} if mount else None,
        ports={port: ("127.0.0.1", None)} if port else None,
        labels={LABEL: "1"},
        name=f"stand-in-test-{uuid.uuid4().hex[:10]}",
        detach=True,
    )
    made.append(container)
    return container


def _healthy(container, test: list[str], seconds: float = 60) -> None:
    """Run compose's healthcheck command in the container until it passes."""
    command = ["sh", "-c", test[1]] if test[0] == "CMD-SHELL" else test[1:]
    deadline = time.monotonic() + seconds
    while True:
        result = container.exec_run(command)
        if result.exit_code == 0:
            return
        container.reload()
        if container.status != "running" or time.monotonic() > deadline:
            logs = container.logs().decode(errors="replace")[-2000:]
            raise AssertionError(f"healthcheck {test} never passed ({container.status}):\n{logs}")
        time.sleep(0.5)


def _host_port(container, port: str) -> int:
    container.reload()
    return int(container.ports[port][0]["HostPort"])


def _server_user(container, name: str) -> str:
    """The user that runs the process `name` in the container (ps is not in the image)."""
    script = (
        f'for d in /proc/[0-9]*; do [ "$(cat $d/comm 2>/dev/null)" = {name} ] && '
        "stat -c %U $d && break; done"
    )
    return container.exec_run(["sh", "-c", script]).output.decode().strip()


def test_the_postgres_stand_in_makes_compose_s_database_and_keeps_it_in_the_volume(engine):
    import psycopg

    client, made = engine
    environment = DB["environment"]
    user, password, name = (
        environment[k] for k in ("POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB")
    )
    volume = _volume(client, made)
    mount = (volume, DB["volumes"][0].split(":", 1)[1])
    first = _start(
        client, made, POSTGRES_IMAGE, environment=environment, mount=mount, port="5432/tcp"
    )
    _healthy(first, DB["healthcheck"]["test"])
    url = f"host=127.0.0.1 port={_host_port(first, '5432/tcp')} dbname={name} user={user}"
    # A login over the network: the password is checked (scram-sha-256), as the official image does.
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(f"{url} password=wrong", connect_timeout=10).close()
    with psycopg.connect(f"{url} password={password}", connect_timeout=10) as db:
        db.execute("CREATE TABLE kept (n int)")
        db.execute("INSERT INTO kept VALUES (42)")
    assert _server_user(first, "postgres") == "postgres"
    first.stop(timeout=20)
    first.remove()
    made.remove(first)
    # A new container on the same volume starts from the data there, not a new cluster.
    second = _start(
        client, made, POSTGRES_IMAGE, environment=environment, mount=mount, port="5432/tcp"
    )
    _healthy(second, DB["healthcheck"]["test"])
    url = f"host=127.0.0.1 port={_host_port(second, '5432/tcp')} dbname={name} user={user}"
    with psycopg.connect(f"{url} password={password}", connect_timeout=10) as db:
        assert db.execute("SELECT n FROM kept").fetchall() == [(42,)]
    assert "initialised" not in second.logs().decode(errors="replace")


def test_the_postgres_stand_in_refuses_to_start_without_a_password(engine):
    client, made = engine
    container = _start(client, made, POSTGRES_IMAGE, environment={"POSTGRES_DB": "x"})
    assert container.wait(timeout=60)["StatusCode"] != 0
    assert "POSTGRES_PASSWORD is not set" in container.logs().decode(errors="replace")


def test_the_redis_stand_in_runs_compose_s_command_in_the_volume(engine):
    import redis

    client, made = engine
    volume = _volume(client, made)
    mount = (volume, REDIS["volumes"][0].split(":", 1)[1])
    container = _start(
        client, made, REDIS_IMAGE, command=REDIS["command"], mount=mount, port="6379/tcp"
    )
    _healthy(container, REDIS["healthcheck"]["test"])
    # From outside the container (not its loopback): protected mode is off, as in the official
    # image.
    server = redis.Redis(
        host="127.0.0.1", port=_host_port(container, "6379/tcp"), socket_timeout=10
    )
    try:
        assert server.ping()
        assert server.config_get("appendonly") == {"appendonly": "yes"}
        assert server.config_get("dir") == {"dir": mount[1]}
        server.set("kept", "1")
    finally:
        server.close()
    assert _server_user(container, "redis-server") == "redis"
    listing = container.exec_run(["ls", mount[1]]).output.decode()
    assert "appendonly" in listing, listing
