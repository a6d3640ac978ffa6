"""What the page-latency benchmarks share: a throwaway test database and median-of-N timing.

Importing this module puts the repository on sys.path and selects the test settings, so a
script under bench/ runs as `.venv/bin/python bench/<script>.py` from any folder.
"""

import os
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings_test")


@contextmanager
def test_database(name: str | None = None):
    """Django set up against a fresh test database (SQLite unless DATABASE_URL is set); `name`
    gives SQLite's a file, so that other processes can open it."""
    import django

    django.setup()
    from django.db import connection
    from django.template import Template
    from django.test.utils import setup_test_environment

    # Django's test environment wraps every template render to send a copy of each context
    # to the test client, and those copies are garbage the collector must then walk (full
    # collections of 25-90 ms inside board requests, measured at 100 models). A web process
    # renders without it, and so do the benches' requests; the rest of the test environment
    # (ALLOWED_HOSTS, the e-mail outbox) stays.
    production_render = Template._render
    setup_test_environment()
    Template._render = production_render
    if name is not None:
        connection.settings_dict.setdefault("TEST", {})["NAME"] = name
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def median_ms(client, path: str, n: int) -> tuple[float, float, float, float]:
    """Milliseconds: the cold first request, then median, min and max of `n` warm ones."""
    started = time.perf_counter()
    assert client.get(path).status_code == 200, path
    cold = time.perf_counter() - started
    times = []
    for _ in range(n):
        started = time.perf_counter()
        response = client.get(path)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200
    ms = [t * 1000 for t in times]
    return cold * 1000, statistics.median(ms), min(ms), max(ms)


def report(client, path: str, n: int) -> str:
    cold, median, low, high = median_ms(client, path, n)
    return (
        f"GET {path}: cold {cold:.1f} ms; median of {n} warm "
        f"requests {median:.1f} ms (min {low:.1f}, max {high:.1f})"
    )
