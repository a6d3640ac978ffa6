"""Median server time of the leaderboard page with the published fixture loaded.

    .venv/bin/python bench/board_latency.py [--requests 20] [--path /]

Uses a throwaway test database (SQLite unless DATABASE_URL is set) and Django's test client,
so the figure is server time only: URL resolution, aggregate (cached after the first
request, as in production), template rendering. The first, cold request is reported apart.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings_test")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--path", default="/")
    args = parser.parse_args()

    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment

    from leaderboard.aggregate import invalidate_board_cache
    from leaderboard.management.commands.load_published import load_published

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0)
    try:
        load_published()
        invalidate_board_cache()
        client = Client()
        started = time.perf_counter()
        assert client.get(args.path).status_code == 200
        cold = time.perf_counter() - started
        times = []
        for _ in range(args.requests):
            started = time.perf_counter()
            response = client.get(args.path)
            times.append(time.perf_counter() - started)
            assert response.status_code == 200
        ms = [t * 1000 for t in times]
        print(
            f"GET {args.path}: cold {cold * 1000:.1f} ms; median of {args.requests} warm "
            f"requests {statistics.median(ms):.1f} ms (min {min(ms):.1f}, max {max(ms):.1f})"
        )
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
