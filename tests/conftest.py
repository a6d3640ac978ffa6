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

# The modules that take longest, longest first: they start first, so the two processes of
# `bin/test` (`-n 2 --dist loadfile`, a module in one process) end close together instead of one
# starting a long module near the end (docs/decisions/0032-suite-wall-time.md). Only
# modules without a database, so pytest-django's order of the database tests stays as it is.
# The seconds beside each are its slowest tests: from the `--durations=15` of a fresh-clone CI
# run of the whole suite (scorer 3.5.0, `.ci/run`, -n 2) where it printed one, else from the
# long modules run together at -n 2 on a quiet machine under the scorer version named.
SLOWEST_MODULES = [
    "test_no_score_without_behaviour.py",  # dqueue 415, spin 105, hidden mode 99
    "test_fidelity_corpus_asterinas.py",  # rwmutex 225, mutex 134
    "test_redisraft_reference.py",  # merged_steps mutant 206
    "test_pre_states_are_states_of_the_spec.py",  # etcd 131
    "test_fidelity_corpus_consensus_bugs.py",  # redisraft 119, etcd 101
    "test_etcd_reference.py",  # wrong_post_state mutant 128
    "test_rwmutex_reference.py",  # mutants 108, 107
    "test_fidelity_corpus_locksvc_gpt5.py",  # 137
    "test_zookeeper_reference.py",  # merged_steps mutant 115
    "test_fidelity_corpus_locksvc.py",  # deepseek 106
    "test_pgo_reference.py",  # whole module 217 (scorer 3.1.0)
    "test_mutex_reference.py",  # mutants 82, 73, 36 (scorer 3.2.0)
    "test_generated_names_never_collide.py",  # 122, 27, 24 (scorer 3.2.0)
    "test_spin_harness_traces.py",  # mutants 89, 52, 31 (scorer 3.2.0)
    "test_fidelity_corpus_dqueue_raftkvs.py",  # raftkvs 37 + 33 (scorer 3.2.0)
]


def pytest_configure(config: pytest.Config) -> None:
    # By default xdist queues a `--dist loadfile` run's modules by their number of tests (most
    # first), not in the collected order, which would undo `slowest_first`.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def slowest_first(items: list[pytest.Item]) -> None:
    """Moves the items of SLOWEST_MODULES to the front, in that list's order; every other item
    keeps its place relative to the rest (pytest-django's database order included)."""
    rank = {name: i for i, name in enumerate(SLOWEST_MODULES)}
    items[:] = sorted(items, key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    slowest_first(items)


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
