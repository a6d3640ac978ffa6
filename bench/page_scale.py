"""Median server times of the leaderboard, model, run and compare pages at scale.

    .venv/bin/python bench/page_scale.py [--models 100] [--runs 10] [--windows 8] [--requests 15]
    .venv/bin/python bench/page_scale.py --models 1000 --lean --paging-only --requests 5

Builds, in a throwaway test database (SQLite unless DATABASE_URL is set), the published fixture
plus `--models` models × 11 tasks × `--runs` verified finished runs each; every verified run has
four phase results, four conformance actions, `--windows` trace windows (a quarter failing, with
a closest-successor diff), runtime actions, per-definition syntax rows and two invariants. Then
it times each page with Django's test client (server time only) and prints the cold first
request (no computed board cached, the stored board current), the median wall time of warm
ones and their median CPU time (the part of the wall time that is this page's own work when the
machine is shared).
Goals (docs/decisions/0026-stored-board-and-paging.md): leaderboard <= 100 ms, compare <= 200 ms;
and the same with every cell's and every overall's interval (computed with the board, cached with
it).

Then (docs/decisions/0026-stored-board-and-paging.md) the pages against the same pages unpaged, as
they were before paging, with their ratio: the board's first page cold (the board cache emptied
first) and warm, against `?page=all`; the JSON export's first page against the streamed full
download (time to the first chunk and to the last); the task page against its whole run list. Goals
at 1,000 models: first page <= 100 ms warm, <= 500 ms cold; task page <= 100 ms. `--lean` leaves
out the per-run detail rows (actions, windows, invariants) that the board never reads, so that
110,000 runs build in minutes on SQLite; `--paging-only` times only these pages.
"""

import argparse
import os
import random
import statistics
import time

from _timing import median_ms, test_database

ACTIONS = ("AcquireLock", "ReleaseLock", "TryLock", "Unlock")
PHASE_NAMES = ("syntax", "runtime", "conformance", "invariant")


def build(n_models: int, n_runs: int, n_windows: int, lean: bool = False) -> dict:
    from django.utils import timezone

    from leaderboard.management.commands.load_published import load_published
    from leaderboard.models import (
        ActionResult,
        InvariantResult,
        ModelUnderTest,
        PhaseResult,
        Run,
        Task,
        WindowResult,
    )

    load_published()
    rng = random.Random(14)
    tasks = list(Task.objects.all())
    models = ModelUnderTest.objects.bulk_create(
        ModelUnderTest(slug=f"scale-{i:03d}", name=f"Scale {i:03d}", organisation=f"Org {i % 17}")
        for i in range(n_models)
    )
    from evaluation.scoring import cell_score

    now = timezone.now()
    planned = [
        (m, t, [1.0, rng.random(), rng.random(), rng.random()])
        for m in models for t in tasks for _ in range(n_runs)
    ]  # fmt: skip
    runs = Run.objects.bulk_create(
        (Run(model=m, task=t, status="finished", provenance="verified", review="approved",
             created_at=now, finished_at=now,
             spec_text=f"---- MODULE {t.module_name} ----\n====\n",
             overall=cell_score(dict(zip(PHASE_NAMES, values, strict=True)), {}, "verified"),
             fingerprint={"tlc_version": "TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)"})
         for m, t, values in planned),
        batch_size=2000,
    )  # fmt: skip
    phases = []
    for run, (_, _, values) in zip(runs, planned, strict=True):
        details = (
            {} if lean else {"definitions": [{"name": f"Op{i}", "verdict": "ok"} for i in range(8)]}
        )
        phases += [
            PhaseResult(run=run, phase=p, status="ran", score=v,
                        details=details if p == "syntax" else {})
            for p, v in zip(PHASE_NAMES, values, strict=True)
        ]  # fmt: skip
    phases = PhaseResult.objects.bulk_create(phases, batch_size=2000)
    actions, windows, invariants = [], [], []
    for result in [] if lean else phases:
        if result.phase in ("runtime", "conformance"):
            for action in ACTIONS:
                total = n_windows if result.phase == "conformance" else 1
                passed = rng.randint(0, total)
                actions.append(
                    ActionResult(phase_result=result, action=action, passed=passed, total=total)
                )
        if result.phase == "conformance":
            for w in range(n_windows):
                failing = rng.random() < 0.25
                windows.append(WindowResult(
                    phase_result=result, action=ACTIONS[w % 4], trace_id=f"trace_{w % 3}",
                    window_id=f"w{w}", actor="1", pre_state={"lockState": "unlocked"},
                    post_state={"lockState": "locked"}, verdict="fail" if failing else "pass",
                    credit="failed" if failing else "credited",
                    detail={"closest": [{"successor": {"lockState": "unlocked"}, "differences": [
                        {"variable": "lockState", "trace": "locked", "spec": "unlocked"}]}]}
                    if failing else {}))  # fmt: skip
        if result.phase == "invariant":
            for name in ("MutualExclusion", "NoDeadlock"):
                verdict = rng.choice(["holds", "violated"])
                credit = "credited" if verdict == "holds" else "failed"
                invariants.append(InvariantResult(
                    phase_result=result, name=name, kind="safety", verdict=verdict, credit=credit
                ))  # fmt: skip
    ActionResult.objects.bulk_create(actions, batch_size=5000)
    WindowResult.objects.bulk_create(windows, batch_size=5000)
    InvariantResult.objects.bulk_create(invariants, batch_size=5000)
    return {
        "models": models,
        "runs": len(runs),
        "windows": len(windows),
        "sample_run": runs[len(runs) // 2].pk,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--runs", type=int, default=10, help="verified runs per model and task")
    parser.add_argument("--windows", type=int, default=8, help="trace windows per run")
    parser.add_argument("--requests", type=int, default=15)
    parser.add_argument("--lean", action="store_true", help="no per-run detail rows")
    parser.add_argument("--paging-only", action="store_true", help="only the paged pages")
    args = parser.parse_args()

    with test_database():
        from django.test import Client

        from leaderboard.board import store
        from leaderboard.models.marks import invalidate_board_cache

        started = time.perf_counter()
        world = build(args.models, args.runs, args.windows, lean=args.lean)
        invalidate_board_cache()
        print(
            f"built {len(world['models'])} models, {world['runs']} verified runs, "
            f"{world['windows']} windows in {time.perf_counter() - started:.0f} s"
        )
        started = time.perf_counter()
        store.ensure(store.scope_of(None))
        print(f"first build of the stored board (once per scope): "
              f"{time.perf_counter() - started:.1f} s")  # fmt: skip
        a, b = world["models"][0].slug, world["models"][1].slug
        client = Client()
        pages = {
            "leaderboard": "/",
            # Issue 22: another policy and table is another cached board, intervals included.
            "board-paper": "/?policy=best&published=paper",
            "board-json": "/leaderboard.json",
            "model": f"/models/{a}/",
            "run": f"/runs/{world['sample_run']}/",
            "compare": f"/compare/?a={a}&b={b}",
        }
        for name, path in {} if args.paging_only else pages.items():
            cold, median, low, high = median_ms(client, path, args.requests)
            cpu = cpu_median_ms(client, path, args.requests)
            print(
                f"{name:12s} GET {path}: cold {cold:.0f} ms; median of {args.requests} warm "
                f"{median:.1f} ms (min {low:.1f}, max {high:.1f}); CPU {cpu:.1f} ms"
            )
        paged_pages(client, args.requests)
        print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def cold_ms(client, path: str) -> tuple[float, int]:
    """One request with no computed board cached (the stored cells current, as after a finished
    run: its refresh moved the scope's version), and its size."""
    from leaderboard.board.boards import forget_cached_boards

    forget_cached_boards()
    started = time.perf_counter()
    response = client.get(path)
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, path
    return elapsed, len(_body(response))


def _body(response) -> bytes:
    if response.streaming:
        return b"".join(response.streaming_content)
    return response.content


def streamed_ms(client, path: str) -> tuple[float, float, int]:
    """Milliseconds to the first chunk and to the last of a streamed response, and its size."""
    started = time.perf_counter()
    response = client.get(path)
    chunks = iter(response.streaming_content)
    size = len(next(chunks))
    first = (time.perf_counter() - started) * 1000
    size += sum(len(chunk) for chunk in chunks)
    return first, (time.perf_counter() - started) * 1000, size


def compare_line(name: str, before: float, after: float, unit: str = "ms") -> str:
    ratio = f"{before / after:.1f}x" if after > 0 else "inf"
    return f"  {name}: before {before:.0f} {unit}, after {after:.0f} {unit}, before/after {ratio}"


def paged_pages(client, n: int) -> None:
    from unittest import mock

    from leaderboard.shared import paging

    print("paged against unpaged (before = every row on one page):")
    # One request first, so that neither side pays the process's first template loads; then
    # the two alternate, twice each (a cold board is seconds at 1,000 models).
    client.get("/")
    colds: dict[str, list[float]] = {"/": [], "/?page=all": []}
    sizes: dict[str, int] = {}
    for _ in range(2):
        for path, seen in colds.items():
            elapsed, sizes[path] = cold_ms(client, path)
            seen.append(elapsed)
    first_cold, all_cold = (statistics.median(colds[p]) for p in ("/", "/?page=all"))
    first_size, all_size = sizes["/"], sizes["/?page=all"]
    _, first_warm, *_ = median_ms(client, "/", n)
    _, all_warm, *_ = median_ms(client, "/?page=all", n)
    goal = "goal at 1,000 models: <= 500 ms cold, <= 100 ms warm"
    print(f"  board first page: cold {first_cold:.0f} ms (median of 2), warm {first_warm:.1f} ms, "
          f"{first_size / 1e3:.0f} kB ({goal})")  # fmt: skip
    print(compare_line("board cold", all_cold, first_cold))
    print(compare_line("board warm", all_warm, first_warm))
    print(compare_line("board size", all_size / 1e3, first_size / 1e3, "kB"))
    _, json_warm, *_ = median_ms(client, "/leaderboard.json", n)
    to_first, to_last, json_size = streamed_ms(client, "/leaderboard.json?page=all")
    print(f"  JSON first page warm {json_warm:.1f} ms; full download (streamed) first chunk "
          f"{to_first:.0f} ms, last {to_last:.0f} ms, {json_size / 1e3:.0f} kB")  # fmt: skip
    task = "/tasks/spin/"
    _, task_warm, low, high = median_ms(client, task, n)
    with mock.patch.object(paging, "RUNS_PER_PAGE", 10**9):
        _, task_all, *_ = median_ms(client, task, n)
    print(f"  task page {task}: median {task_warm:.1f} ms (min {low:.1f}, max {high:.1f}; "
          "goal <= 100 ms)")  # fmt: skip
    print(compare_line("task page", task_all, task_warm))


def cpu_median_ms(client, path: str, n: int) -> float:
    """Median CPU time of this process per request: on a machine shared with other work, wall
    time measures the neighbours as much as the page."""
    times = []
    for _ in range(n):
        started = time.process_time()
        client.get(path)
        times.append((time.process_time() - started) * 1000)
    return statistics.median(times)


if __name__ == "__main__":
    main()
