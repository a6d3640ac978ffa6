"""Rescoring a release with one worker: runs per minute, and a submission is not starved.

    .venv/bin/python bench/rescore.py [--runs 20] [--redis-url redis://127.0.0.1:6379/8]

Makes N approved runs of the spin reference spec "before releases" on a throwaway SQLite file,
a release of the current identity, and `rescore`s them: N jobs on `evaluation-rescore`. One
`manage.py rqworker evaluation evaluation-rescore --burst` scores them for real. Once two
rescorings have finished, a new submission is queued on `evaluation`. Prints the rescoring
rate, and when the submission started and finished against the rescorings still waiting then.
The Redis database must be empty (it is flushed at the end). Needs Redis and Java.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Importing _timing puts the repository on sys.path and selects the test settings.
from _timing import test_database

REPO = Path(__file__).resolve().parent.parent
QUEUES = ("evaluation", "evaluation-rescore")  # the worker's order is the priority


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/8")
    args = parser.parse_args()
    if os.environ.get("DATABASE_URL"):
        sys.exit("run without DATABASE_URL: the bench uses a throwaway SQLite file")
    from redis import Redis

    redis = Redis.from_url(args.redis_url)
    if redis.dbsize():
        sys.exit(f"{args.redis_url} is not empty; give an empty database with --redis-url")
    with tempfile.TemporaryDirectory(prefix="rescore-bench-") as folder:
        db = str(Path(folder) / "rescore.sqlite3")
        try:
            with test_database(db):
                bench(args.runs, args.redis_url, db, Path(folder))
        finally:
            redis.flushdb()


def bench(n: int, redis_url: str, db: str, folder: Path) -> None:
    from django.conf import settings
    from django.test.utils import override_settings
    from django.utils import timezone

    from leaderboard.models import Run
    from leaderboard.releases.identity import make_release
    from leaderboard.releases.rescoring import rescore
    from leaderboard.scoring.queueing import enqueue_run
    from tests.base import make_model, make_run
    from tests.release_support import import_spin, spec

    task = import_spin(Path(settings.TASKS_DATA_DIR))
    text = spec("spin")
    phases = {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0, "invariant": 1.0}
    for number in range(n):
        make_run(make_model(f"model-{number}"), task, phases, spec_text=text)
    queues = {
        name: {"URL": redis_url, "DEFAULT_TIMEOUT": settings.RQ_JOB_TIMEOUT} for name in QUEUES
    }
    with override_settings(RQ_QUEUES=queues, RQ_FORCE_INLINE=False):
        release = make_release("bench", "the bench's release")
        queued = rescore(release).queued
        print(f"{queued} rescoring(s) queued on evaluation-rescore; one worker")
        worker = start_worker(redis_url, db, folder / "worker.log")
        started = time.monotonic()
        rescorings = Run.objects.filter(rescore_of__isnull=False)
        while rescorings.filter(status="finished").count() < 2:
            time.sleep(0.5)
            if worker.poll() is not None:
                sys.exit((folder / "worker.log").read_text()[-3000:])
        waiting = rescorings.filter(status="queued").count()
        submission = make_run(make_model("newcomer"), task, spec_text=text, status="queued",
                              review=Run.Review.PRIVATE)  # fmt: skip
        queued_at = timezone.now()
        enqueue_run(submission)
        print(f"submission queued with {waiting} rescoring(s) still waiting")
        worker.wait(timeout=3600)
        elapsed = time.monotonic() - started
    report(n, rescorings, Run.objects.get(pk=submission.pk), queued_at, elapsed)


def report(n, rescorings, submission, queued_at, elapsed) -> None:
    done = rescorings.filter(status="finished")
    first = min(r.started_at for r in done)
    last = max(r.finished_at for r in done)
    minutes = (last - first).total_seconds() / 60
    rate = done.count() / minutes
    print(f"{done.count()}/{n} rescorings finished in {minutes * 60:.0f} s: "
          f"{rate:.1f} runs per minute (one worker; wall {elapsed:.0f} s)")  # fmt: skip
    began = (submission.started_at - first).total_seconds()
    took = (submission.finished_at - submission.started_at).total_seconds()
    print(f"submission: {submission.status}, scoring started {began:.0f} s after the first "
          f"rescoring, took {took:.0f} s")  # fmt: skip
    after = done.filter(started_at__gt=submission.finished_at).count()
    running = done.filter(started_at__lt=queued_at, finished_at__gt=queued_at).count()
    jumped = done.filter(started_at__gt=queued_at, started_at__lt=submission.started_at).count()
    print(
        f"when the submission was queued {running} rescoring was running; rescorings started "
        f"between its queueing and its start: {jumped}; started after it finished: {after}"
    )


def start_worker(redis_url: str, db: str, log_path: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "DATABASE_URL": f"sqlite:///{db}",
        "REDIS_URL": redis_url,
        "RQ_FORCE_INLINE": "0",
    }
    with open(log_path, "ab") as log:
        return subprocess.Popen(
            [sys.executable, "manage.py", "rqworker", *QUEUES, "--burst"],
            cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip


if __name__ == "__main__":
    main()
