"""Session-wide test setup shared by every module.

Tests marked `redis` start real `rqworker` subprocesses, which must see the rows the test wrote.
SQLite's default test database lives in memory, out of another process's reach, so a session
that contains such tests puts the SQLite test database in a file (one per pytest process, so
parallel runs never share it) that the workers open through DATABASE_URL. Other sessions keep
the in-memory database. PostgreSQL needs nothing: its test database is reachable by name.
"""

import os
import tempfile
from pathlib import Path

import pytest

# Prints the coverage total when bin/test measures it.
pytest_plugins = ["tests.coverage_total"]


@pytest.fixture(scope="session")
def django_db_modify_db_settings(request, django_db_modify_db_settings_parallel_suffix):
    from django.conf import settings

    database = settings.DATABASES["default"]
    wants_file = any(item.get_closest_marker("redis") for item in request.session.items)
    if wants_file and database["ENGINE"].endswith("sqlite3"):
        name = Path(tempfile.gettempdir()) / f"sysmobench-test-{os.getpid()}.sqlite3"
        database.setdefault("TEST", {})["NAME"] = str(name)


@pytest.fixture
def rq_redis(settings):
    """A Redis database of this test's own, wired into the `evaluation` queue; skips without
    Redis. Yields the URL that worker subprocesses get as REDIS_URL."""
    from tests.rq_worker import claimed_redis_db

    with claimed_redis_db() as url:
        settings.RQ_QUEUES = {"evaluation": {"URL": url, "DEFAULT_TIMEOUT": 900}}
        settings.RQ_FORCE_INLINE = False
        yield url


@pytest.fixture(scope="session")
def docker_client():
    """The Docker engine with the scorer image; skips without it, fails under CI=true."""
    from tests.docker_support import engine_with_image

    return engine_with_image()


LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture(scope="session", autouse=True)
def _per_process_cache():
    """Tests keep a cache of their own: with REDIS_URL set (CI) the site's cache would be shared
    Redis, where parallel test runs with equal-looking databases could read each other's boards.
    The shared cache is tested on a claimed Redis database (test_board_cache_shared.py)."""
    from django.test import override_settings

    with override_settings(CACHES=LOCMEM):
        yield
