"""The board kept incrementally (docs/decisions/0026-stored-board-and-paging.md): what a board
request costs when runs keep finishing.

    .venv/bin/python bench/board_incremental.py [--models 100] [--runs 10] [--changes 10]

Builds, in a throwaway test database (SQLite unless DATABASE_URL is set), the published fixture
plus `--models` models × 11 tasks × `--runs` verified finished runs (page_scale's lean world:
no per-run detail rows), then prints:

- the first build of the stored board (once per scope: after the migration or `rebuild_board`);
- the board page cold (no computed board cached; the stored cells current: the state after
  every change) and warm (p50 of `--requests`); goals at 100 models: <= 300 ms cold, <= 50 ms
  warm; at 1,000 models the first page <= 500 ms cold, <= 100 ms warm;
- `--changes` times: a run of a random model finishes (Run.finish, as the job ends it), then
  the board is requested; and as many times a pending run is approved (Run.approve, as a
  maintainer does), then the board is requested. The requests are served as by another
  process than the writer: this process's own memos of boards and rows are emptied first.
  Prints the writer's refresh (the work the finishing process does after commit) and the
  slowest and median later request, wall and CPU (goal: no request slower than 100 ms);
- a re-weighted board (`?w=`) cold: arithmetic on the stored cells' run figures.
"""

import argparse
import gc
import os
import random
import statistics
import time

from _timing import median_ms, test_database
from page_scale import build


def _request_ms(client, path: str) -> float:
    started = time.perf_counter()
    response = client.get(path)
    assert response.status_code == 200, path
    return (time.perf_counter() - started) * 1000


def _request_cpu_ms(client, path: str) -> tuple[float, float]:
    """Wall and CPU milliseconds of one request (CPU: this process's own work, which the
    neighbours on a shared machine do not inflate)."""
    cpu = time.process_time()
    wall = _request_ms(client, path)
    return wall, (time.process_time() - cpu) * 1000


def _as_another_process() -> None:
    """Forget what this process memoised of the boards it computed: the request that follows
    is served as by a web process that did not do the refresh (the writer is the work-horse),
    which finds only what the shared cache holds."""
    from leaderboard.board import boards, tables

    boards._LOCAL_BOARDS.clear()
    tables._LOCAL_ROWS.clear()


def _new_run(model, task, review: str):
    from leaderboard.models import PhaseResult, Run

    spec = f"---- MODULE {task.module_name} ----\n====\n"
    run = Run.objects.create(
        model=model, task=task, status=Run.Status.RUNNING, attempts=1, review=review,
        provenance=Run.Provenance.VERIFIED, spec_text=spec,
    )  # fmt: skip
    for phase in ("syntax", "runtime", "conformance", "invariant"):
        PhaseResult.objects.create(run=run, phase=phase, status="ran", score=random.random())
    return run


def changes(client, world: dict, n: int) -> None:
    from django.contrib.auth import get_user_model

    from leaderboard.models import Run, Task

    tasks = list(Task.objects.all())
    maintainer = get_user_model().objects.create_user("bench-maintainer", is_staff=True)
    client.get("/")
    for kind in ("finish", "approve"):
        writer, later, later_cpu = [], [], []
        for _ in range(n):
            model, task = random.choice(world["models"]), random.choice(tasks)
            review = Run.Review.APPROVED if kind == "finish" else Run.Review.PENDING
            run = _new_run(model, task, review)
            started = time.perf_counter()
            if kind == "finish":
                run.finish(0.5, {})
            else:
                run.finish(0.5, {})
                started = time.perf_counter()
                run.approve(maintainer)
            # Autocommit: the change committed, and its on_commit refresh ran, in this call.
            writer.append((time.perf_counter() - started) * 1000)
            _as_another_process()
            for wall, cpu in (_request_cpu_ms(client, "/") for _ in range(3)):
                later.append(wall)
                later_cpu.append(cpu)
        print(
            f"  {kind} one run, {n} times: the writer's call with its refresh median "
            f"{statistics.median(writer):.0f} ms (max {max(writer):.0f}); later board requests "
            f"median {statistics.median(later):.1f} ms, slowest {max(later):.1f} ms; their CPU "
            f"median {statistics.median(later_cpu):.1f} ms, slowest {max(later_cpu):.1f} ms "
            "(goal: none > 100 ms)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--runs", type=int, default=10, help="verified runs per model and task")
    parser.add_argument("--requests", type=int, default=15)
    parser.add_argument("--changes", type=int, default=10)
    args = parser.parse_args()
    random.seed(24)

    with test_database():
        from django.test import Client

        from leaderboard.board import store
        from leaderboard.board.boards import forget_cached_boards

        started = time.perf_counter()
        world = build(args.models, args.runs, 0, lean=True)
        print(f"built {args.models} models, {world['runs']} verified runs in "
              f"{time.perf_counter() - started:.0f} s")  # fmt: skip
        # What building left in this process is not a web process's: collected, then frozen
        # out of the collector's reach, so a full collection over it does not land in a request
        # (gunicorn's preloaded workers start the same way).
        gc.collect()
        gc.freeze()
        started = time.perf_counter()
        store.rebuild_all()
        store.ensure(store.scope_of(None))
        print(f"  first build of the stored board: {time.perf_counter() - started:.1f} s")
        client = Client()
        client.get("/")  # the process's first template loads are nobody's board
        colds, cold_cpu = [], []
        for _ in range(3):
            forget_cached_boards()
            wall, cpu = _request_cpu_ms(client, "/")
            colds.append(wall)
            cold_cpu.append(cpu)
        _, warm, low, high = median_ms(client, "/", args.requests)
        warm_cpu = statistics.median(_request_cpu_ms(client, "/")[1] for _ in range(args.requests))
        print(f"  board first page: cold median of 3 {statistics.median(colds):.0f} ms "
              f"(max {max(colds):.0f}), CPU {statistics.median(cold_cpu):.0f} ms; warm p50 "
              f"{warm:.1f} ms (min {low:.1f}, max {high:.1f}), CPU {warm_cpu:.1f} ms")  # fmt: skip
        weighted = "/?w=0.25,0.25,0.25,0.25"
        reweighted = []
        for _ in range(2):
            forget_cached_boards()
            reweighted.append(_request_cpu_ms(client, weighted))
        wall = statistics.median(w for w, _ in reweighted)
        cpu = statistics.median(c for _, c in reweighted)
        print(f"  re-weighted board cold: median of 2 {wall:.0f} ms, CPU {cpu:.0f} ms")
        changes(client, world, args.changes)
        print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
