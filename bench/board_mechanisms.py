"""What each of the board's caches buys: the first page's server time with and without each,
at `--models` models (docs/decisions/0026-stored-board-and-paging.md).

    .venv/bin/python bench/board_mechanisms.py [--models 100] [--runs 10] [--requests 15]
    CACHE_URL=redis://127.0.0.1:6379/9 .venv/bin/python bench/board_mechanisms.py --models 1000

What is in front of the stored cells: the per-process memo of computed boards
(`board/memo.py`) and the writer's warming of the first page after a change (`web/warm.py`);
computed boards are not put in the shared cache (measured with this bench, then removed).
Each line is one situation a request meets, timed with Django's test client (server time;
median of `--requests`):
- warm: the board computed and in this process's memo, and without the memo (computed on every
  request);
- after a change, in the writer's process: the change's refresh and warming ran, against the
  request that computes what the warming would have (warming off; the refresh stays eager);
- after a change, in another process (this process's memo emptied): it computes the board once
  for the new version.
Goals (issue 36): the first page cold <= 300 ms and warm <= 50 ms at 100 models, <= 500 and
<= 100 ms at 1,000.
"""

import argparse
import os
import statistics
import time
from contextlib import contextmanager
from unittest import mock

from _timing import test_database
from page_scale import build


def timed(client, path: str = "/") -> float:
    started = time.perf_counter()
    response = client.get(path)
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 200
    return elapsed


def median_of(n: int, prepare, client) -> float:
    times = []
    for _ in range(n):
        prepare()
        times.append(timed(client))
    return statistics.median(times)


def change(world: dict, k: list[int]) -> None:
    """A change to one cell, committed as a finished run's is: its mark, then the signals."""
    from django.db import transaction

    from leaderboard.models import Run
    from leaderboard.models.marks import board_changed

    k[0] += 1
    model = world["models"][k[0] % len(world["models"])]
    with transaction.atomic():
        run = Run.objects.filter(model=model).first()
        assert run is not None
        Run.objects.filter(pk=run.pk).update(overall=(k[0] % 7) / 7)
        board_changed(run.model_id, run.task_id)


@contextmanager
def no_warming():
    """The writer takes its marks in (the refresh stays) but computes nothing for readers."""
    from leaderboard.board import store
    from leaderboard.models import signals
    from leaderboard.web import warm

    def refresh_only(**_: object) -> None:
        store.refresh_marked()

    signals.board_marked.disconnect(dispatch_uid="board-refresh")
    signals.board_marked.connect(refresh_only, dispatch_uid="board-refresh-only")
    try:
        yield
    finally:
        signals.board_marked.disconnect(dispatch_uid="board-refresh-only")
        signals.board_marked.connect(warm.refresh_and_warm, dispatch_uid="board-refresh")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--runs", type=int, default=10, help="verified runs per model and task")
    parser.add_argument("--requests", type=int, default=15)
    args = parser.parse_args()
    n = args.requests

    with test_database():
        from django.test import Client

        from leaderboard.board import boards, store
        from leaderboard.models.marks import invalidate_board_cache

        world = build(args.models, args.runs, 0, lean=True)
        invalidate_board_cache()
        store.ensure(store.scope_of(None))
        client = Client()
        k = [0]
        forget_memo = boards._LOCAL_BOARDS.clear
        timed(client)  # the process's first template loads, outside every figure
        rows = [
            ("warm, memo (all on)", median_of(n, lambda: None, client)),
        ]
        with mock.patch.object(boards._LOCAL_BOARDS, "get", lambda key: None):
            rows.append(("warm, no memo (computed each time)", median_of(n, lambda: None, client)))
        rows.append(
            (
                "after a change, writer's process, warmed",
                median_of(n, lambda: change(world, k), client),
            )
        )
        with no_warming():
            rows.append(
                ("after a change, not warmed", median_of(n, lambda: change(world, k), client))
            )

        def elsewhere() -> None:
            change(world, k)
            forget_memo()

        rows.append(("after a change, another process", median_of(n, elsewhere, client)))
        cache = os.environ.get("CACHE_URL") or "local memory"
        print(f"{args.models} models x {args.runs} runs x 11 tasks; shared cache: {cache}")
        for name, ms in rows:
            print(f"  {name:48s} {ms:7.1f} ms")
        print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
