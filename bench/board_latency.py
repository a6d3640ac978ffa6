"""Median server time of the leaderboard page with the published fixture loaded.

    .venv/bin/python bench/board_latency.py [--requests 20] [--path /]

Uses a throwaway test database (SQLite unless DATABASE_URL is set) and Django's test client,
so the figure is server time only: URL resolution, aggregate (cached after the first
request, as in production), template rendering. The first, cold request is reported apart.
"""

import argparse

from _timing import report, test_database


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--path", default="/")
    args = parser.parse_args()

    with test_database():
        from django.test import Client

        from leaderboard.management.commands.load_published import load_published
        from leaderboard.models.marks import invalidate_board_cache

        load_published()
        invalidate_board_cache()
        print(report(Client(), args.path, args.requests))


if __name__ == "__main__":
    main()
