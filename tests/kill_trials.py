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
from dataclasses import dataclass
from pathlib import Path

from leaderboard.models import PhaseResult, Run
from leaderboard.scoring.queueing import enqueue_run
from leaderboard.scoring.reaper import reap_stale_runs
from tests.rq_worker import start_worker

KINDS = ("main", "horse", "both")
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

    @property
    def scored_twice(self) -> bool:
        return self.most_horses_at_once > 1 or self.late_rows > 0

    @property
    def lost(self) -> bool:
        return self.status != Run.Status.FINISHED


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


def run_trial(kind: str, run: Run, redis_url: str, workdir: Path, timeout: float = 600) -> Trial:
    """Score `run` (QUEUED, on a task with its corpus imported) by a worker, SIGKILL `kind`
    during a TLC run after P1 was stored, reap until the run ends; the counts."""
    assert kind in KINDS
    tmp = workdir / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    workers: list = []

    def new_worker():
        log = workdir / f"worker-{len(workers) + 1}.log"
        workers.append(start_worker(redis_url, log, TMPDIR=str(tmp)))

    started = time.monotonic()
    deadline = started + timeout
    enqueue_run(run)
    new_worker()
    first = workers[0]
    while not (PhaseResult.objects.filter(run=run).exists() and jvms_under(tmp)):
        if time.monotonic() > deadline or first.poll() is not None:
            raise AssertionError(f"no TLC run to interrupt:\n{_tail(first)}")
        time.sleep(0.05)
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

    most_horses, crowd = 1, []
    next_reap = 0.0
    while time.monotonic() < deadline:
        for worker in workers:
            worker.poll()  # reap exited workers (no zombies counted as alive)
        live_horses = work_horses({w.pid for w in workers})
        if len(live_horses) > most_horses:
            most_horses, crowd = len(live_horses), [_describe(pid) for pid in live_horses]
        run.refresh_from_db()
        idle = all(w.returncode is not None for w in workers) and not live_horses
        if run.is_terminal and idle:
            break
        if time.monotonic() >= next_reap:
            reap_stale_runs()
            next_reap = time.monotonic() + REAP_EVERY_SECONDS
            run.refresh_from_db()
            if run.status == Run.Status.QUEUED and all(w.returncode is not None for w in workers):
                new_worker()
        time.sleep(0.1)
    else:
        for worker in workers:
            _kill(worker.pid)
        raise AssertionError(f"run {run.pk} did not end within {timeout} s ({run.status})")

    run.refresh_from_db()
    late = 0
    if run.finished_at is not None:
        late = PhaseResult.objects.filter(run=run, finished_at__gt=run.finished_at).count()
    time.sleep(2)  # a JVM whose parent died needs a moment to get its signal
    left = jvms_under(tmp)
    for pid in left:  # leave the machine clean whatever the verdict
        _kill(pid)
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
    )


def _describe(pid: int) -> str:
    fields = _stat(pid) or ["?"] * 4
    return f"pid {pid} state {fields[0]} ppid {fields[1]} session {fields[3]}"


def _tail(worker) -> str:
    return Path(worker.log_path).read_text(errors="replace")[-3000:]
