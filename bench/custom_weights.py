"""The time of a board under a visitor's own weights (`?w=`) at scale, three ways
(docs/decisions/0029-abuse-bounds.md).

    .venv/bin/python bench/custom_weights.py [--models 100] [--runs 10] [--vectors 5]

Builds bench/page_scale.py's world (lean: no per-run detail rows) in a throwaway test database,
then for `--vectors` weight vectors prints the median wall and CPU time of:

- full build: the board from the run tables (runs and phase results read and scored, every
  cell's interval drawn), as the stored board's own build does it;
- stored runs, cold: the site's path (`boards.board_of_scope`) the first time after the scope
  changed: the run records the stored cells keep are decoded, then scored;
- stored runs, warm: the same for a further vector of the same scope version (decoded once);
- cell means: weights × each stored cell's phase means, no intervals. Not the site's path: it
  differs from the exact board (printed: cells and ranks that differ, the largest difference),
  and it cannot give the intervals (tests/test_custom_weight_boards_equal_the_full_build.py).
"""

import argparse
import os
import random
import statistics
import time

from _timing import test_database


def timed(work) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--runs", type=int, default=10, help="verified runs per model and task")
    parser.add_argument("--vectors", type=int, default=5)
    args = parser.parse_args()

    with test_database():
        from page_scale import build

        from leaderboard.board import aggregate, boards, store
        from leaderboard.board.policy import MEAN, SITE
        from leaderboard.models import Run, Task
        from leaderboard.models.marks import invalidate_board_cache

        started = time.perf_counter()
        world = build(args.models, args.runs, 0, lean=True)
        invalidate_board_cache()
        scope = store.scope_of(None)
        version = store.ensure(scope)
        print(f"built {len(world['models'])} models, {world['runs']} verified runs and the "
              f"stored board in {time.perf_counter() - started:.0f} s")  # fmt: skip
        rng = random.Random(35)
        vectors = [
            aggregate.normalise_weights(rng.random() for _ in aggregate.PHASES)
            for _ in range(args.vectors)
        ]
        n_tasks = max(Task.objects.count(), 1)

        def full_build(weights):
            counted = Run.objects.countable().in_scope(scope)
            frame = aggregate.run_frame(counted.board_rows(), counted.board_phase_rows(), weights)
            cells = aggregate.counted_cells(frame, MEAN)
            rows = aggregate.model_rows(cells, store.models_frame(), n_tasks)
            samples = aggregate.cell_samples(
                cells, frame, MEAN, weights, aggregate.units_from_database
            )
            aggregate.add_intervals(cells, rows, samples, n_tasks)
            return rows

        def cold(weights):
            store.forget_stored_runs()
            return boards.board_of_scope(scope, weights, MEAN, SITE, version)

        def warm(weights):
            return boards.board_of_scope(scope, weights, MEAN, SITE, version)

        def cell_means(weights):
            cells = store.default_cells(scope)
            counted = [cells[p].fillna(0.0) for p in aggregate.PHASES]
            cells["overall"] = sum(w * c for w, c in zip(weights, counted, strict=True))
            return cells, aggregate.model_rows(cells, store.models_frame(), n_tasks)

        warm(vectors[0])  # the memo filled once, as by the first visitor's vector
        ways = {"full build": full_build, "stored runs, cold": cold,
                "stored runs, warm": warm, "cell means": cell_means}  # fmt: skip
        for name, work in ways.items():
            times = [timed(lambda w=w, work=work: work(w))[:2] for w in vectors]
            wall = statistics.median(t[0] for t in times)
            cpu = statistics.median(t[1] for t in times)
            print(f"{name:18s} median of {len(vectors)} vectors: {wall:7.0f} ms wall, "
                  f"{cpu:7.0f} ms CPU")  # fmt: skip
        differ = ranks = 0
        largest = 0.0
        for weights in vectors:
            exact = warm(weights)
            cells, rows = cell_means(weights)
            key = ["model_id", "task_id"]
            mine = cells.sort_values(key, ignore_index=True).overall
            theirs = exact.cells.sort_values(key, ignore_index=True).overall
            differ += int((mine != theirs).sum())
            largest = max(largest, float((mine - theirs).abs().max()))
            by_model = exact.rows.set_index("model_id")["rank"]
            ranks += int((rows.set_index("model_id")["rank"] != by_model).sum())
        print(f"cell means against the exact board over {len(vectors)} vectors: {differ} cell "
              f"values differ (largest by {largest:.1e}), {ranks} ranks differ, "
              "no intervals")  # fmt: skip
        print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
