"""Real Redis and real `manage.py rqworker` subprocesses, for the tests marked `redis`.

Each test claims a Redis database of its own: a database that is empty, claimed with SET NX on
a claim key, so parallel test runs (and the demo on database 0) never see each other's queues.
Everything in a claimed database was created by the claiming test, which flushes it at the end.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlencode, urlparse

import pytest
from django.conf import settings
from django.db import connection

from leaderboard.scoring.processes import descendants, start_time
from leaderboard.scoring.queueing import BULK_QUEUE_NAME, QUEUE_NAME, RESCORE_QUEUE_NAME

REPO = Path(__file__).resolve().parent.parent
# In compose's order: submissions first.
WORKER_QUEUES = (QUEUE_NAME, BULK_QUEUE_NAME, RESCORE_QUEUE_NAME)
CLAIM_KEY = "sysmobench-tests:claimed-by"
CANDIDATE_DBS = range(15, 1, -1)  # leave 0 (demo) and 1 alone


def _server() -> tuple[str, int]:
    parsed = urlparse(settings.REDIS_URL)
    return parsed.hostname or "127.0.0.1", parsed.port or 6379


@contextmanager
def claimed_redis_db():
    """Yields `redis://host:port/<n>` for an empty database this test owns; skips without Redis."""
    from redis import Redis
    from redis.exceptions import RedisError

    host, port = _server()
    try:
        Redis(host=host, port=port, socket_timeout=0.5, socket_connect_timeout=0.5).ping()
    except (RedisError, OSError):
        pytest.skip(f"Redis does not answer on {host}:{port}")
    owner = f"{os.getpid()}:{time.time()}"
    for number in CANDIDATE_DBS:
        client = Redis(host=host, port=port, db=number)
        if not client.set(CLAIM_KEY, owner, nx=True, ex=1800):
            continue
        if client.dbsize() != 1:  # someone else's data lives here: not ours to use or flush
            client.delete(CLAIM_KEY)
            continue
        try:
            yield f"redis://{host}:{port}/{number}"
        finally:
            client.flushdb()
            client.close()
        return
    pytest.skip("no free Redis database to claim for this test")


def database_url() -> str:
    """DATABASE_URL for a subprocess that must open this test's database."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        name = str(db["NAME"])
        if "memory" in name or not name.startswith("/"):
            raise RuntimeError("the SQLite test database is not a file; see tests/conftest.py")
        return f"sqlite:///{name}"
    user = quote(db.get("USER") or "")
    password = quote(db.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if user else ""
    port = f":{db['PORT']}" if db.get("PORT") else ""
    # The test run's own connection options (?sslmode=require in CI's DATABASE_URL) go along.
    query = f"?{urlencode(db['OPTIONS'])}" if db.get("OPTIONS") else ""
    return f"postgresql://{auth}{db.get('HOST') or 'localhost'}{port}/{db['NAME']}{query}"


def start_worker(redis_url: str, log_path: Path, **extra_env: str) -> subprocess.Popen:
    """`manage.py rqworker <the three queues> --burst` on the test database, in a session of
    its own (its work-horse stays in that session); its output goes to `log_path` (a pipe nobody
    reads could fill up and stall the worker). `extra_env`, e.g. TMPDIR, is added to its
    environment. It takes every queue, as compose's worker does: a run a job queues again goes
    to the queue its own settings choose (a run without a submitter: the bulk queue), which a
    worker of `evaluation` alone would never take (a fault trial's retry waited there)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "DATABASE_URL": database_url(),
        "REDIS_URL": redis_url,
        "RQ_FORCE_INLINE": "0",
        **extra_env,
    }
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "rqworker", *WORKER_QUEUES, "--burst"],
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    proc.log_path = log_path
    return proc


def kill_worker(proc: subprocess.Popen) -> None:
    """SIGKILL the worker, its work horse and their TLC children: a machine losing power.

    The sandbox starts each JVM in a session of its own, so killing the worker's group would
    orphan it; its process groups are collected first and killed too (all started by this test).
    Returns once every one of them has exited: the work-horse is not the worker's `wait`ed child,
    and on a busy machine it may take seconds to die after the worker itself.
    """
    found = [(pid, start_time(pid)) for pid in [proc.pid, *descendants(proc.pid)]]
    killed = [(pid, started) for pid, started in found if started is not None]
    groups = {proc.pid}
    for pid, _ in killed:
        try:
            groups.add(os.getpgid(pid))
        except ProcessLookupError:
            pass
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(timeout=30)
    wait_for(lambda: all(start_time(pid) != started for pid, started in killed), 30)


def worker_output(proc: subprocess.Popen) -> str:
    return Path(proc.log_path).read_text(errors="replace")


def finish_worker(proc: subprocess.Popen, timeout: float) -> str:
    """Wait for a burst worker to drain its queue; its output, for failure messages."""
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_worker(proc)
        raise AssertionError(
            f"worker did not finish in {timeout} s:\n{worker_output(proc)[-3000:]}"
        ) from None
    return worker_output(proc)


def wait_for(predicate, timeout: float, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")
