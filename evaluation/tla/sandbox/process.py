"""One tool command run isolated, limited and watched, and killed with all it started.

As root the tool runs under `unshare --mount --net`: a private mount namespace for the tmpfs
and a network namespace with only a downed loopback (TLC's RMI listener reaches nobody).
Without root, scratch is a plain directory and a watchdog thread kills the run when it grows
past the cap (checked every 0.2 s, so it may overshoot by what TLC writes in that time).
Every call: argv list, new session (killed as a group on timeout), RLIMIT_CPU (set by the
launcher, `_launch.py`), a clean environment and output truncated to head + tail (`capture.py`).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from evaluation.tla.sandbox.capture import Capture, pump
from evaluation.tla.sandbox.jvm import java_argv
from evaluation.tla.sandbox.limits import Limits

LAUNCHER = Path(__file__).resolve().parent / "_launch.py"
# Where TLC's argv names its metadir, replaced by the run directory's own.
METADIR = "{metadir}"

_UNSHARE_WORKS: list[bool] = []


def _can_unshare() -> bool:
    """Whether namespaces are available. Only a success is remembered: a probe that failed
    once (a transient resource shortage) must not drop every later run to plain mode, without
    its network namespace, for the life of the worker."""
    if _UNSHARE_WORKS:
        return True
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--mount", "--net", "--", "true"], capture_output=True, check=False
    )
    if probe.returncode == 0:
        _UNSHARE_WORKS.append(True)
    return probe.returncode == 0


def isolation_mode() -> str:
    """'namespaces' (root: unshare + tmpfs) or 'plain' (directory + size watchdog)."""
    return "namespaces" if _can_unshare() else "plain"


@dataclass
class RawRun:
    """How the tool's process ended, before any status is read into it."""

    exit_code: int | None
    output: str
    truncated: bool
    wall_seconds: float
    killed_for: str = ""
    # CPU seconds (user + system) the tool used, from the kernel's account of the reaped
    # process (wait4); None when it was not reaped here.
    cpu_seconds: float | None = None


def run_tool(
    run_dir: Path, limits: Limits, main_class: str, tool_args: list[str], cds: list[str]
) -> RawRun:
    """`main_class` with `tool_args` in the prepared `run_dir` (`rundir.run_directory`)."""
    metadir = str(run_dir / "scratch" / "meta")
    tool_args = [metadir if a == METADIR else a for a in tool_args]
    java = java_argv(run_dir, limits, main_class, cds)
    return execute(wrap(java + tool_args, run_dir, limits), run_dir, limits)


def wrap(command: list[str], run_dir: Path, limits: Limits) -> list[str]:
    namespaces = _can_unshare()
    launch = [
        sys.executable,
        "-I",
        "-S",
        str(LAUNCHER),
        str(max(1, int(limits.cpu_seconds))),
        str(run_dir / "scratch"),
        str(int(limits.scratch_mb)),
        "1" if namespaces else "0",
        str(os.getpid()),
        "--",
        *command,
    ]
    return ["unshare", "--mount", "--net", "--", *launch] if namespaces else launch


def clean_env(run_dir: Path) -> dict[str, str]:
    # A clean environment: nothing like JAVA_TOOL_OPTIONS or CLASSPATH leaks into the JVM.
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(run_dir / "scratch" / "home"),
        "LANG": "C.UTF-8",
        "TMPDIR": str(run_dir / "scratch" / "tmp"),
    }


def execute(argv: list[str], run_dir: Path, limits: Limits) -> RawRun:
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=run_dir / "spec",
        env=clean_env(run_dir),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    capture = Capture(limits.output_head_bytes)
    reader = threading.Thread(target=pump, args=(proc.stdout, capture), daemon=True)
    reader.start()
    # The cap is the tmpfs size when the run got namespaces (decided once, by `wrap`).
    watch_scratch = argv[0] != "unshare"
    reaped = Reaped()
    try:
        killed_for = watch(proc, run_dir, limits, start, watch_scratch, reaped)
        reaped.wait(proc)
    finally:
        # Every exit path, including an exception raised in the poll loop (a job timeout's
        # signal handler, KeyboardInterrupt): the JVM and anything it started die with the call.
        kill_group(proc)
        reaped.wait(proc)
        reader.join(timeout=5)
    return RawRun(
        proc.returncode,
        capture.text(),
        capture.truncated,
        time.monotonic() - start,
        killed_for,
        reaped.cpu_seconds,
    )


class Reaped:
    """Reaps the tool with wait4, which also gives the CPU time the kernel charged it: how the
    status tells a CPU-limit kill from a kill the sandbox did not send (`status.py`). `unshare`
    and the launcher exec, so the process reaped is the JVM itself."""

    def __init__(self) -> None:
        self.cpu_seconds: float | None = None

    def poll(self, proc: subprocess.Popen[bytes]) -> int | None:
        return self._reap(proc, os.WNOHANG)

    def wait(self, proc: subprocess.Popen[bytes]) -> int | None:
        return self._reap(proc, 0)

    def _reap(self, proc: subprocess.Popen[bytes], options: int) -> int | None:
        if proc.returncode is not None:
            return proc.returncode
        try:
            pid, status, usage = os.wait4(proc.pid, options)
        except ChildProcessError:  # reaped elsewhere: the exit code is Popen's to read
            return proc.poll() if options else proc.wait()
        if pid == 0:
            return None
        proc.returncode = os.waitstatus_to_exitcode(status)
        self.cpu_seconds = usage.ru_utime + usage.ru_stime
        return proc.returncode


def watch(
    proc: subprocess.Popen[bytes],
    run_dir: Path,
    limits: Limits,
    start: float,
    watch_scratch: bool,
    reaped: Reaped,
) -> str:
    """Poll until the tool ends or a limit is hit; returns what it was killed for ("" if none).
    `watch_scratch`: scratch is a plain directory, whose size only this loop caps."""
    cap_bytes = int(limits.scratch_mb) * 1024 * 1024
    deadline = start + float(limits.wall_seconds)
    next_scratch_check = next_work_check = start
    while reaped.poll(proc) is None:
        now = time.monotonic()
        killed_for = ""
        if now >= deadline:
            killed_for = "wall"
        elif limits.work_cpu_seconds is not None and now >= next_work_check:
            next_work_check = now + 0.25
            if cpu_seconds_of(proc.pid) >= limits.work_cpu_seconds:
                killed_for = "work"
        elif watch_scratch and now >= next_scratch_check:
            # Walking the scratch tree costs more than a poll: every 0.05 s at first, then 0.2.
            next_scratch_check = now + (0.05 if now - start < 2 else 0.2)
            if dir_size(run_dir / "scratch") > cap_bytes:
                killed_for = "scratch"
        if killed_for:
            kill_group(proc)
            return killed_for
        # Short sleeps: the end of a run is seen within 10 ms, as Popen.wait's own polling did.
        time.sleep(0.01)
    return ""


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds_of(pid: int) -> float:
    """User + system CPU seconds of a running process, all its threads (0 once it is gone).
    `unshare` and the launcher exec, so `pid` is the JVM's own."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    # Fields after the command (which may hold spaces and parentheses): utime, stime are 14, 15.
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def dir_size(path: Path) -> int:
    total = 0
    for base, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(base, name)).st_size
            except OSError:
                pass
    return total


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
