"""Fault trials: strike a real `rqworker` scoring the spin reference, N times per kind, let the
reaper recover, and count the damage.

    .venv/bin/python bench/kill_trials.py [--trials 3] [--kinds main,horse,...]
        [--redis-port 18300] [--postgres-port 18301]

Kinds: SIGKILL of the main worker process (`main`), its work-horse (`horse`), both (`both`), or
the TLC JVM from outside (`jvm`), mid-run (P1 stored, a JVM running); a Redis restart mid-run
(`redis`, no persistence: every queue and job is lost) or while the run is submitted
(`redis-at-submit`); a PostgreSQL restart mid-run (`postgres`, fast shutdown: every connection
is cut) or while the worker takes the job (`postgres-at-claim`); the workers' TMPDIR, a small
tmpfs, filled up mid-run and freed once the attempt was given up (`scratch`); and `docker`
(a worker with SCORER_BACKEND=docker, as compose's `worker` service runs it, whose work-horse is
SIGKILLed while its scorer container runs: the reaper must remove the container and the run be
scored again), skipped, saying why, when the engine or the image is missing. `docker compose`
itself is not started: its `db` and `redis` services need images from a registry.
The bench starts its own Redis and PostgreSQL (temporary data directories,
the ports above), never the machine's; it runs as root (the tmpfs mount; PostgreSQL itself
runs as the `postgres` user). An undisturbed trial first gives the scores every trial must end
with. Per kind it prints trials, lost (ended FAILED for another reason than the machine's),
stuck (not ended within 10 minutes), scored twice, wrong final score, could not be scored (the
retries ran out: allowed, counted apart), the attempts used and the median trial time. See
tests/kill_trials.py for how each is judged. Needs Redis, PostgreSQL's server binaries and Java.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from datetime import timedelta
from pathlib import Path

# Importing _timing puts the repository on sys.path and selects the test settings.
from _services import PrivatePostgres, PrivateRedis
from _timing import test_database

ALL_KINDS = "main,horse,both,jvm,redis,redis-at-submit,postgres,postgres-at-claim,scratch,docker"
SCRATCH_MB = 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--kinds", default=ALL_KINDS)
    parser.add_argument("--redis-port", type=int, default=18300)
    parser.add_argument("--postgres-port", type=int, default=18301)
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root: the scratch kind mounts a tmpfs")
    with tempfile.TemporaryDirectory(prefix="fault-trials-") as name:
        folder = Path(name)
        redis = PrivateRedis(args.redis_port, folder)
        postgres = PrivatePostgres(args.postgres_port, folder / "pg")
        scratch = folder / "scratch"
        scratch.mkdir()
        redis.start()
        postgres.start()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SCRATCH_MB}m", "tmpfs", scratch],
                       check=True)  # fmt: skip
        try:
            os.environ.update(DATABASE_URL=postgres.url, REDIS_URL=redis.url)
            with test_database():
                run_all(args.kinds.split(","), args.trials, folder, redis, postgres, scratch)
        finally:
            subprocess.run(["umount", "-l", scratch], check=False)
            redis.stop()
            postgres.stop()
            shutil.rmtree(folder / "pg", ignore_errors=True)


def run_all(kinds, trials, folder, redis, postgres, scratch) -> None:
    from django.conf import settings
    from django.test.utils import override_settings
    from django.utils import timezone

    from evaluation.inputs.contracts import load_contract
    from leaderboard.tasks.importing import import_corpus, sync_task
    from tests.base import make_model, make_run
    from tests.kill_trials import BASELINE, Servers, run_trial
    from tests.rq_worker import claimed_redis_db

    spec = (Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla").read_text()
    contract = load_contract("spin")
    task, _ = sync_task(contract)
    import_corpus(task, contract, Path(settings.SYSMOBENCH_DATA_DIR))
    servers = Servers(redis=redis, postgres=postgres, scratch=scratch)
    print(f"{trials} trial(s) per kind, spin reference, private Redis and PostgreSQL")
    with claimed_redis_db() as url:
        queues = {"evaluation": {"URL": url, "DEFAULT_TIMEOUT": settings.RQ_JOB_TIMEOUT}}
        with override_settings(RQ_QUEUES=queues, RQ_FORCE_INLINE=False):

            def trial(kind, number):
                # Two minutes old: the reaper's grace for a fresh run's own enqueue is over.
                created = timezone.now() - timedelta(minutes=2)
                run = make_run(make_model(f"{kind}-{number}"), task, spec_text=spec,
                               status="queued", review="private", created_at=created)  # fmt: skip
                return run_trial(kind, run, url, folder / f"{kind}-{number}", servers=servers)

            expected = trial(BASELINE, 0)
            if expected.status != "finished":
                sys.exit(f"the undisturbed trial did not finish: {expected}")
            print(f"undisturbed: overall {expected.overall}, phases {expected.phase_scores}, "
                  f"{expected.seconds:.0f} s")  # fmt: skip
            print_header()
            totals = Counter()
            for kind in kinds:
                if kind == "docker" and docker_missing():
                    print(f"{'docker':18} skipped: {docker_missing()}")
                    continue
                results = []
                for number in range(trials):
                    results.append(trial(kind, number))
                    if results[-1].crowd:
                        print(f"  {kind} trial {number}: work-horses at once: {results[-1].crowd}")
                totals.update(print_row(kind, results, expected))
            print_total(totals)


def print_header() -> None:
    print(f"{'kind':18} {'trials':>6} {'lost':>5} {'stuck':>6} {'twice':>6} "
          f"{'wrong':>6} {'unscored':>9}  attempts  median s")  # fmt: skip


def print_total(totals: Counter) -> None:
    print(f"{'all':18} {totals['trials']:>6} {totals['lost']:>5} {totals['stuck']:>6} "
          f"{totals['twice']:>6} {totals['wrong']:>6} {totals['unscored']:>9}")  # fmt: skip


def print_row(kind, results, expected, containers: bool | None = None) -> Counter:
    """One kind's row (tests/kill_trials.py judges each trial); `containers`: also say how many
    scorer containers the trials left (default: for the docker kind). Shared with
    bench/compose_trials.py."""
    counts = Counter(
        trials=len(results),
        lost=sum(t.lost and not t.stuck and not t.could_not_be_scored for t in results),
        stuck=sum(t.stuck for t in results),
        twice=sum(t.scored_twice for t in results),
        wrong=sum(t.wrong_score(expected) for t in results),
        unscored=sum(t.could_not_be_scored for t in results),
    )
    attempts = dict(sorted(Counter(t.attempts for t in results).items()))
    print(
        f"{kind:18} {counts['trials']:>6} {counts['lost']:>5} {counts['stuck']:>6} "
        f"{counts['twice']:>6} {counts['wrong']:>6} {counts['unscored']:>9}  {attempts!s:8}  "
        f"{statistics.median(t.seconds for t in results):.0f}"
    )
    left = sum(t.containers_left for t in results)
    if containers or (containers is None and kind == "docker"):
        print(f"  {kind}: scorer containers left after the trials: {left}")
    for t in results:
        if t.lost or t.scored_twice or t.wrong_score(expected):
            print(f"  {kind}: {t.status} attempts {t.attempts} overall {t.overall} "
                  f"{t.failure_reason[:200]!r}")  # fmt: skip
    return counts


def docker_missing() -> str:
    """Why the docker kind cannot run here ('' when it could)."""
    if shutil.which("docker") is None:
        return "no docker client"
    engine = subprocess.run(["docker", "info"], capture_output=True, text=True, check=False)
    if engine.returncode != 0:
        return (
            "the Docker engine (dockerd) does not answer: "
            + (engine.stderr.strip().splitlines() or ["no reason given"])[-1]
        )
    from django.conf import settings

    image = subprocess.run(
        ["docker", "image", "inspect", settings.SCORER_DOCKER_IMAGE],
        capture_output=True,
        check=False,
    )
    if image.returncode != 0:
        return f"no image {settings.SCORER_DOCKER_IMAGE} (bin/build-images makes it)"
    return ""


if __name__ == "__main__":
    main()
