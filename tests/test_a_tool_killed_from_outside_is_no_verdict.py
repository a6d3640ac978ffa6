"""A TLC process killed by a signal the sandbox did not send (the kernel's out-of-memory killer,
an operator) is the machine's failure, never a verdict: the sandbox raises
InfrastructureFailure instead of reporting a timeout, the scoring stops rather than scoring the
phase 0, and the job queues the run again, then says it could not be scored. The kills here are
real SIGKILLs of the running JVM, sent from outside the sandbox."""

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from evaluation.pipeline import score_spec
from evaluation.results import InfrastructureFailure
from evaluation.tla.sandbox import Limits, run_tlc
from leaderboard.models import Run
from leaderboard.scoring import backends
from leaderboard.scoring.jobs import evaluate_run
from tests.conformance_support import spin, spin_spec, spin_windows
from tests.test_job_lifecycle import queued_run, spin_task

pytestmark = pytest.mark.tla

BUSY = (
    "---- MODULE Busy ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = x + 1\n====\n"
)


def _java_children() -> list[int]:
    """This process's JVM children (the sandbox's launcher and `unshare` exec into the JVM)."""
    me, found = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me and b"java" in cmdline:
            found.append(int(entry.name))
    return found


class Killer(threading.Thread):
    """Once `armed` is set, SIGKILLs the first JVM this process starts (or is running). Used as
    a context manager: it stops with the test, so it can never kill a later test's JVM."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.armed = threading.Event()
        self.done = threading.Event()
        self.killed: list[int] = []

    def __enter__(self) -> "Killer":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.armed.set()
        self.join(timeout=5)

    def run(self) -> None:
        self.armed.wait()
        while not self.killed and not self.done.is_set():
            for pid in _java_children():
                time.sleep(0.2)  # let it start working: a kill mid-check, not at exec
                try:
                    os.kill(pid, signal.SIGKILL)
                    self.killed.append(pid)
                except ProcessLookupError:
                    continue
                break
            time.sleep(0.005)


def test_a_jvm_killed_from_outside_raises_instead_of_timing_out():
    with Killer() as killer:
        killer.armed.set()
        with pytest.raises(InfrastructureFailure, match="a signal the sandbox did not send"):
            run_tlc({"Busy": BUSY}, "Busy", "INIT Init\nNEXT Next\n", [], Limits(wall_seconds=60))
    assert killer.killed


def test_the_cpu_limit_is_still_a_timeout():
    run = run_tlc(
        {"Busy": BUSY}, "Busy", "INIT Init\nNEXT Next\n", [], Limits(wall_seconds=30, cpu_seconds=2)
    )
    assert run.status == "timeout" and "CPU-time limit" in run.note


def _kill_during_conformance(killer: Killer):
    def on_phase(outcome):
        if outcome.phase == "runtime":
            killer.armed.set()

    return on_phase


def test_a_kill_during_p3_stops_the_scoring_instead_of_scoring_p3_zero():
    # The reference scores 1.0; before, the kill made P3 a "timeout" and the overall 0.650.
    with Killer() as killer, pytest.raises(InfrastructureFailure):
        score_spec(spin_spec(), spin(), spin_windows(), on_phase=_kill_during_conformance(killer))
    assert killer.killed


@pytest.mark.django_db
def test_the_job_queues_the_run_again_and_the_next_attempt_scores_it(monkeypatch):
    task = spin_task()
    run = queued_run(task)
    real = backends.surface.score_spec
    with Killer() as killer:

        def killed_in_p3(*args, **kwargs):
            return real(*args, **{**kwargs, "on_phase": _chain(kwargs["on_phase"], killer)})

        monkeypatch.setattr(backends.surface, "score_spec", killed_in_p3)
        assert evaluate_run(run.pk) == Run.Status.QUEUED
    run.refresh_from_db()
    assert (run.status, run.attempts, run.overall) == (Run.Status.QUEUED, 1, None)
    assert "not the spec's result, re-queued" in run.log
    monkeypatch.setattr(backends.surface, "score_spec", real)
    assert evaluate_run(run.pk) == Run.Status.FINISHED
    run.refresh_from_db()
    assert (run.attempts, run.overall) == (2, pytest.approx(1.0))


@pytest.mark.django_db
def test_after_the_last_attempt_the_run_could_not_be_scored(monkeypatch, settings):
    task = spin_task()
    run = queued_run(task, attempts=settings.SCORING_MAX_ATTEMPTS - 1)

    def machine_fails(*args, **kwargs):
        raise InfrastructureFailure("TLC did not finish: killed from outside")

    monkeypatch.setattr(backends.surface, "score_spec", machine_fails)
    assert evaluate_run(run.pk) == Run.Status.FAILED
    run.refresh_from_db()
    assert run.overall is None
    assert run.failure_reason.startswith("could not be scored: TLC did not finish")
    assert "not your spec's" in run.failure_reason


def _chain(on_phase, killer: Killer):
    arm = _kill_during_conformance(killer)

    def both(outcome):
        on_phase(outcome)
        arm(outcome)

    return both
