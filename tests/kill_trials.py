"""Kill trials: SIGKILL a real `rqworker` (main process, work-horse, or both) while it scores a
run with TLC, let the reaper recover, and count what went wrong.

Shared by tests/test_worker_kill_trials.py (a few trials) and bench/kill_trials.py (ten per
kind, printing the figures). A trial counts
- lost: the run did not end FINISHED;
- scored twice: two work-horses scored the run at the same moment (seen by polling), or a phase
  row was written after the run ended;
- JVMs left: `java` processes of the trial still running after it ended (every trial's workers
  get a TMPDIR of their own, under which the sandbox puts each JVM's working directory), and
  JVMs that outlived their killed work-horse by ORPHAN_GRACE_SECONDS (a fast spec's JVM may end
  on its own before the trial does, so the first count alone would not see an orphan).
The judge reads /proc only, not the code under test: a work-horse is a fork of a worker this
module started (same session, same command line), other than the worker itself.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import InterfaceError, OperationalError, connection
from django.test.utils import override_settings

from leaderboard.models import PhaseResult, Run
from leaderboard.scoring import queueing
from leaderboard.scoring.backends import reap_containers, site_tag
from leaderboard.scoring.queueing import enqueue_run
from leaderboard.scoring.reaper import reap_stale_runs
from tests.rq_worker import start_worker

KINDS = ("main", "horse", "both")
# The bench's further kinds (bench/kill_trials.py), which need servers of their own (`Servers`).
FAULT_KINDS = ("jvm", "redis", "redis-at-submit", "postgres", "postgres-at-claim", "scratch")
# The work-horse of a worker with SCORER_BACKEND=docker SIGKILLed while its scorer container runs:
# the container must go (the reaper's reap_containers) and the run be scored again.
DOCKER = "docker"
DATABASE_DOWN = (OperationalError, InterfaceError)
BASELINE = "none"  # no fault: the scores every other trial must end with
PROC = Path("/proc")
REAP_EVERY_SECONDS = 1.0
# How long a JVM may outlive its killed work-horse (the parent-death signal acts at once).
ORPHAN_GRACE_SECONDS = 1.0


@dataclass
class Trial:
    kind: str
    status: str
    attempts: int
    most_horses_at_once: int
    late_rows: int
    jvms_left: int
    jvms_outliving_horse: int
    seconds: float
    killed: list[int]
    crowd: list[str]  # the work-horses seen when most were alive at once, if more than one
    stuck: bool = False  # not ended within the trial's timeout
    containers_left: int = 0  # scorer containers of the run still there after it ended
    failure_reason: str = ""
    overall: float | None = None
    phase_scores: dict[str, float | None] = field(default_factory=dict)

    @property
    def scored_twice(self) -> bool:
        return self.most_horses_at_once > 1 or self.late_rows > 0

    @property
    def lost(self) -> bool:
        return self.status != Run.Status.FINISHED

    @property
    def could_not_be_scored(self) -> bool:
        """Ended FAILED by the retry bound, saying the machine failed: allowed, counted apart."""
        return self.status == Run.Status.FAILED and self.failure_reason.startswith(
            ("could not be scored", "the scoring worker stopped without finishing")
        )

    def wrong_score(self, expected: Trial) -> bool:
        """FINISHED with another overall or phase score than an undisturbed run's."""
        return self.status == Run.Status.FINISHED and (
            self.overall != expected.overall or self.phase_scores != expected.phase_scores
        )


def _stat(pid: int) -> list[str] | None:
    try:
        return (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _pids():
    return (int(e.name) for e in PROC.iterdir() if e.name.isdigit())


def work_horses(worker_pids: set[int]) -> list[int]:
    """Live forks of the `rqworker` processes `worker_pids` (in their sessions, with their
    command line), other than the workers themselves. A horse's own children are not horses:
    its tool probes (`java -version`, ...) share the session, and between fork and exec a
    subprocess even has the horse's command line."""
    forks = {}
    for pid in _pids():
        fields = _stat(pid)
        if not fields or fields[0] == "Z" or int(fields[3]) not in worker_pids:
            continue
        try:
            cmdline = (PROC / str(pid) / "cmdline").read_bytes()
        except OSError:
            continue
        if pid not in worker_pids and b"rqworker" in cmdline:
            forks[pid] = int(fields[1])
    return [pid for pid, parent in forks.items() if parent not in forks]


def jvms_under(root: Path) -> list[int]:
    found = []
    for pid in _pids():
        try:
            if (PROC / str(pid) / "comm").read_text().strip() != "java":
                continue
            cwd = os.readlink(PROC / str(pid) / "cwd")
            cmdline = (PROC / str(pid) / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if cwd.startswith(str(root)) or str(root) in cmdline:
            found.append(pid)
    return found


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@dataclass
class Servers:
    """What the fault kinds beyond SIGKILL act on (bench/kill_trials.py starts them): the
    Redis and PostgreSQL servers the trial's workers use (each with start/stop/restart), and a
    small tmpfs mounted as the workers' TMPDIR for the `scratch` kind."""

    redis: Any = None
    postgres: Any = None
    scratch: Path | None = None


# Where each kind strikes: before the job is taken, or mid-run (P1 stored, a TLC JVM running).
BEFORE_THE_JOB = ("redis-at-submit", "postgres-at-claim")


def run_trial(
    kind: str,
    run: Run,
    redis_url: str,
    workdir: Path,
    timeout: float = 600,
    servers: Servers | None = None,
) -> Trial:
    """Score `run` (QUEUED, on a task with its corpus imported) by a worker, strike it with
    `kind` (SIGKILL of the worker, its horse, both, or the JVM; a Redis or PostgreSQL restart
    mid-run or while the job is taken; a full scratch area), reap until the run ends; the
    counts. A run still unfinished at `timeout` is `stuck`."""
    assert kind in (*KINDS, *FAULT_KINDS, DOCKER, BASELINE), kind
    servers = servers or Servers()
    tmp = servers.scratch if kind == "scratch" and servers.scratch else workdir / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    workdir.mkdir(parents=True, exist_ok=True)
    workers: list = []

    def new_worker():
        log = workdir / f"worker-{len(workers) + 1}.log"
        backend = {"SCORER_BACKEND": "docker"} if kind == DOCKER else {}
        workers.append(start_worker(redis_url, log, TMPDIR=str(tmp), **backend))

    started = time.monotonic()
    deadline = started + timeout
    killed: list[int] = []
    orphans = 0
    heal = None
    if kind in BEFORE_THE_JOB:
        _strike_before_the_job(kind, run, servers, new_worker, workers)
    else:
        enqueue_run(run)
        new_worker()
        first = workers[0]
        busy = _container_running if kind == DOCKER else _tlc_running
        while not (PhaseResult.objects.filter(run=run).exists() and busy(run, tmp)):
            if time.monotonic() > deadline or first.poll() is not None:
                raise AssertionError(f"no TLC run to interrupt:\n{_tail(first)}")
            time.sleep(0.05)
        if kind in KINDS:
            killed, orphans = _kill_worker_processes(kind, first, tmp)
        elif kind == DOCKER:
            killed, orphans = _kill_worker_processes("horse", first, tmp)
        else:
            heal = _strike_mid_run(kind, servers, tmp)

    most_horses, crowd = 1, []
    next_reap = 0.0
    stuck = True
    while time.monotonic() < deadline:
        for worker in workers:
            worker.poll()  # reap exited workers (no zombies counted as alive)
        live_horses = work_horses({w.pid for w in workers})
        if len(live_horses) > most_horses:
            most_horses, crowd = len(live_horses), [_describe(pid) for pid in live_horses]
        if not _refresh(run):
            time.sleep(0.2)  # the database is restarting
            continue
        if heal is not None and (run.attempts > 1 or run.requeue_notes() or run.is_terminal):
            heal()  # the attempt the fault ended was given up: the next one finds room
            heal = None
        idle = all(w.returncode is not None for w in workers) and not live_horses
        if run.is_terminal and idle:
            stuck = False
            break
        if time.monotonic() >= next_reap and _reap(containers=kind == DOCKER):
            next_reap = time.monotonic() + REAP_EVERY_SECONDS
            if _refresh(run) and run.status == Run.Status.QUEUED and not live_horses:
                if all(w.returncode is not None for w in workers):
                    new_worker()
        time.sleep(0.05 if heal is not None else 0.1)
    if heal is not None:
        heal()
    if stuck:
        for worker in workers:
            _kill(worker.pid)
    _refresh(run)
    late = 0
    if run.finished_at is not None:
        late = PhaseResult.objects.filter(run=run, finished_at__gt=run.finished_at).count()
    time.sleep(2)  # a JVM whose parent died needs a moment to get its signal
    left = jvms_under(tmp)
    for pid in left:  # leave the machine clean whatever the verdict
        _kill(pid)
    containers = _scorer_containers(run) if kind == DOCKER else []
    for leftover in containers:
        leftover.remove(force=True)
    return Trial(
        kind=kind,
        status=run.status,
        attempts=run.attempts,
        most_horses_at_once=most_horses,
        late_rows=late,
        jvms_left=len(left),
        jvms_outliving_horse=orphans,
        seconds=round(time.monotonic() - started, 1),
        killed=killed,
        crowd=crowd,
        stuck=stuck,
        containers_left=len(containers),
        failure_reason=run.failure_reason,
        overall=run.overall,
        phase_scores=dict(run.phase_results.values_list("phase", "score")),
    )


def _kill_worker_processes(kind: str, first, tmp: Path) -> tuple[list[int], int]:
    horses = work_horses({first.pid})
    assert len(horses) == 1, f"expected one work-horse, found {horses}"
    killed = {"main": [first.pid], "horse": horses, "both": [first.pid, *horses]}[kind]
    running_jvms = jvms_under(tmp)
    for pid in killed:
        _kill(pid)
    orphans = 0
    if kind != "main":
        # The horse is gone: its JVMs must go with it, not run on until their limits.
        time.sleep(ORPHAN_GRACE_SECONDS)
        orphans = len(set(running_jvms) & set(jvms_under(tmp)))
    return killed, orphans


def _strike_mid_run(kind: str, servers: Servers, tmp: Path):
    """Strike a run in the middle of a TLC call; what heals the fault later, if anything."""
    if kind == "jvm":  # as the kernel's out-of-memory killer would
        for pid in jvms_under(tmp):
            _kill(pid)
    elif kind == "redis":
        servers.redis.restart()
    elif kind == "postgres":
        servers.postgres.restart()
    elif kind == "scratch":
        return _fill(tmp)
    return None


def _fill(folder: Path):
    """Fill the tmpfs at `folder` up to its last byte; returns what frees it again."""
    filler = folder / "filler"
    with open(filler, "wb") as out:
        try:
            while True:
                out.write(b"\0" * (1 << 20))
                out.flush()
        except OSError:
            pass
    return lambda: filler.unlink(missing_ok=True)


def _strike_before_the_job(kind: str, run: Run, servers: Servers, new_worker, workers) -> None:
    if kind == "redis-at-submit":
        servers.redis.stop()
        enqueue_run(run)  # stays QUEUED, nothing lost: the reaper enqueues it
        servers.redis.start()
        new_worker()
        return
    # The worker takes the job while the database is down: the job fails before its claim.
    servers.postgres.stop()
    queueing._dispatch(run.pk, run.attempts + 1)
    new_worker()
    try:
        workers[-1].wait(timeout=120)
    finally:
        servers.postgres.start()


def _refresh(run: Run) -> bool:
    """`run.refresh_from_db()`; False while the database does not answer."""
    try:
        run.refresh_from_db()
    except DATABASE_DOWN:
        connection.close()
        return False
    return True


def _tlc_running(run: Run, tmp: Path) -> bool:
    return bool(jvms_under(tmp))


def _container_running(run: Run, tmp: Path) -> bool:
    run.refresh_from_db()
    return any(c.status == "running" for c in _scorer_containers(run))


def _scorer_containers(run: Run) -> list[Any]:
    """Every scorer container started for `run`, whatever its attempt (docker labels)."""
    import docker

    from evaluation.backends import container

    client = docker.from_env()
    try:
        found = client.containers.list(all=True, filters={"label": f"{container.LABEL}=1"})
        prefix = f"{site_tag()}-{run.pk}."
        return [c for c in found if c.labels.get(container.RUN_LABEL, "").startswith(prefix)]
    finally:
        client.close()


def _reap(containers: bool = False) -> bool:
    """One pass of the reaper, as `manage.py reap_runs` makes it (with the docker backend,
    leftover scorer containers too)."""
    try:
        reap_stale_runs()
        if containers:
            with override_settings(SCORER_BACKEND="docker"):
                reap_containers()
    except DATABASE_DOWN:
        connection.close()
        return False
    return True


def _describe(pid: int) -> str:
    fields = _stat(pid) or ["?"] * 4
    return f"pid {pid} state {fields[0]} ppid {fields[1]} session {fields[3]}"


def _tail(worker) -> str:
    return Path(worker.log_path).read_text(errors="replace")[-3000:]
