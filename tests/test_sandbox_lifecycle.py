"""No JVM outlives the call that started it: not on a job timeout raised in the middle of a TLC
run (rq's signal-based death penalty), not when the scoring process itself is killed."""

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from evaluation.tla.sandbox import Limits, run_tlc

pytestmark = pytest.mark.tla

ROOT = Path(__file__).resolve().parent.parent
ENDLESS = """---- MODULE Endless ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = x + 1
====
"""
CFG = "INIT Init\nNEXT Next\n"


class JobTimeout(Exception):
    """Stands in for rq's JobTimeoutException, raised by its SIGALRM handler."""


def javas_under(directory: Path) -> list[int]:
    """Live (non-zombie) java processes whose command line mentions `directory`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if (
            state != "Z"
            and argv
            and argv[0].endswith(b"java")
            and str(directory).encode() in (b" ".join(argv))
        ):
            found.append(int(proc.name))
    return found


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_job_timeout_in_the_middle_of_a_tlc_run_leaves_no_java(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen: list[int] = []

    def death_penalty(signum, frame):
        seen.extend(javas_under(tmp_path))
        raise JobTimeout("job exceeded its timeout")

    previous = signal.signal(signal.SIGALRM, death_penalty)
    signal.setitimer(signal.ITIMER_REAL, 4)
    try:
        with pytest.raises(JobTimeout):
            run_tlc({"Endless": ENDLESS}, "Endless", CFG, ["-deadlock"], Limits(120, 240))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    left = javas_under(tmp_path)
    kill_all(left)
    assert seen, "TLC was not running when the job timed out"
    assert left == []


SCORER = """
import sys
from evaluation.tla.sandbox import Limits, run_tlc
run_tlc({"Endless": sys.stdin.read()}, "Endless", "INIT Init\\nNEXT Next\\n", [], Limits(120, 240))
"""


def test_the_jvm_dies_with_the_scoring_process(tmp_path):
    scorer = subprocess.Popen(
        [sys.executable, "-c", SCORER],
        stdin=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        text=True,
    )
    scorer.stdin.write(ENDLESS)
    scorer.stdin.close()
    try:
        assert wait_for(lambda: javas_under(tmp_path), 30), "TLC never started"
        scorer.kill()  # SIGKILL: no finally, no atexit runs in the scorer
        scorer.wait()
        gone = wait_for(lambda: not javas_under(tmp_path), 10)
    finally:
        scorer.kill()
        left = javas_under(tmp_path)
        kill_all(left)
    assert gone, f"java {left} outlived its parent"
