"""Kill trials: SIGKILL a real `rqworker` mid-TLC, N times per kind, and count the damage.

    .venv/bin/python bench/kill_trials.py [--trials 10] [--kinds main,horse,both]

Each trial submits the spin reference spec, starts `manage.py rqworker evaluation --burst` on a
throwaway SQLite file database and a Redis database of its own (tests/rq_worker.py), waits until
a TLC JVM runs after P1 was stored, SIGKILLs the main worker process, its work-horse, or both,
then runs the reaper every second (starting a new worker when it re-queues the run) until the
run ends. Per kind it prints: runs lost (not FINISHED), runs scored twice (two work-horses at
once, or a phase row written after the run ended), JVMs left after the trial, JVMs that
outlived their killed work-horse by a second, the attempts used and the median trial time.
See tests/kill_trials.py for how each is judged. Needs Redis and Java.
"""

import argparse
import os
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

# Importing _timing puts the repository on sys.path and selects the test settings.
from _timing import test_database


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--kinds", default="main,horse,both")
    args = parser.parse_args()
    if os.environ.get("DATABASE_URL"):
        sys.exit("run without DATABASE_URL: the trials use a throwaway SQLite file")
    with tempfile.TemporaryDirectory(prefix="kill-trials-") as folder:
        with test_database(str(Path(folder) / "kill-trials.sqlite3")):
            run_all(args.kinds.split(","), args.trials, Path(folder))


def run_all(kinds: list[str], trials: int, folder: Path) -> None:
    from django.conf import settings
    from django.test.utils import override_settings

    from evaluation.inputs.contracts import load_contract
    from leaderboard.tasks.importing import import_corpus, sync_task
    from tests.base import make_model, make_run
    from tests.kill_trials import run_trial
    from tests.rq_worker import claimed_redis_db

    spec = (Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla").read_text()
    contract = load_contract("spin")
    task, _ = sync_task(contract)
    import_corpus(task, contract, Path(settings.SYSMOBENCH_DATA_DIR))
    print(f"{trials} trial(s) per kind, spin reference, SIGKILL during a TLC run after P1")
    print(
        f"{'kind':6} {'lost':>5} {'twice':>6} {'JVMs left':>10} {'JVMs>1s':>8}  attempts  median s"
    )
    with claimed_redis_db() as url:
        queues = {"evaluation": {"URL": url, "DEFAULT_TIMEOUT": settings.RQ_JOB_TIMEOUT}}
        with override_settings(RQ_QUEUES=queues, RQ_FORCE_INLINE=False):
            for kind in kinds:
                results = []
                for number in range(trials):
                    run = make_run(make_model(f"{kind}-{number}"), task, spec_text=spec)
                    results.append(run_trial(kind, run, url, folder / f"{kind}-{number}"))
                    if results[-1].crowd:
                        print(f"  {kind} trial {number}: work-horses at once: {results[-1].crowd}")
                print_row(kind, results)


def print_row(kind: str, results) -> None:
    attempts = Counter(t.attempts for t in results)
    print(
        f"{kind:6} {sum(t.lost for t in results):>5} {sum(t.scored_twice for t in results):>6} "
        f"{sum(t.jvms_left > 0 for t in results):>10} "
        f"{sum(t.jvms_outliving_horse > 0 for t in results):>8}  "
        f"{dict(sorted(attempts.items()))!s:8}  {statistics.median(t.seconds for t in results):.0f}"
    )


if __name__ == "__main__":
    main()
