"""A call's status and note, from how its process ended and what the tool itself reported.

A pass is never read from text the spec could print: SANY's exit code and error sections, TLC's
exit status and its final statistics (printed after the spec stopped being evaluated).
"""

from __future__ import annotations

import re
import signal

from evaluation.tla import messages as msg
from evaluation.tla.codes import EC
from evaluation.tla.messages import Message
from evaluation.tla.sandbox.limits import Limits, ToolStatus
from evaluation.tla.sandbox.process import RawRun

# The launcher's exit when it could not set up the sandbox (`_launch.py`, which imports nothing).
SETUP_FAILED = 120
SANY_ERROR_MARKERS = (
    "***Parse Error***",
    "Semantic errors:",
    "*** Errors:",
    "Fatal errors",
    "Could not parse",
    "Cannot find source file",
    "Parse Error",
)
DISK_FULL = "No space left on device"
QUEUE_DONE = re.compile(r"\b0 states left on queue")


def common_status(raw: RawRun, limits: Limits) -> tuple[ToolStatus, str] | None:
    """The status when the run was cut short or never ran the tool; None when the tool ended.
    `crashed` is the machine's doing, never the spec's (`calls.py` raises it)."""
    if raw.killed_for == "wall":
        return "timeout", "wall-clock limit reached; the tool was killed"
    if raw.killed_for == "work":
        return "error", (
            f"work bound reached: the tool used {limits.work_cpu_seconds:g} CPU seconds "
            "(its own, not the machine's load); the tool was killed"
        )
    if raw.killed_for == "scratch":
        return "error", "scratch space cap exceeded; the tool was killed"
    if raw.exit_code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
        return "timeout", "CPU-time limit reached; the tool was killed"
    if raw.exit_code in (-signal.SIGKILL, 128 + signal.SIGKILL):
        # The kernel sends SIGKILL at RLIMIT_CPU's hard limit (the launcher sets it 2 s past the
        # soft one, whose SIGXCPU the JVM may survive); any other SIGKILL came from outside.
        if raw.cpu_seconds is None or raw.cpu_seconds >= limits.cpu_seconds:
            return "timeout", "CPU-time limit reached; the tool was killed"
        return "crashed", (
            f"the tool was killed by a signal the sandbox did not send (SIGKILL after "
            f"{raw.cpu_seconds:.1f} of its {limits.cpu_seconds} CPU seconds: the kernel's "
            "out-of-memory killer, or an operator)"
        )
    if raw.exit_code == SETUP_FAILED and "sandbox setup failed" in raw.output:
        return "crashed", "sandbox setup failed"
    if raw.exit_code is None or raw.exit_code < 0:
        return "crashed", f"tool ended abnormally (exit {raw.exit_code})"
    return None


def sany_status(raw: RawRun) -> tuple[ToolStatus, str]:
    if raw.exit_code != 0:
        return "error", f"SANY exited with {raw.exit_code}"
    if any(marker in raw.output for marker in SANY_ERROR_MARKERS):
        return "error", "SANY reported errors (it exits 0 on semantic errors)"
    return "ok", ""


def tlc_status(
    raw: RawRun, parsed: list[Message], simulate: bool, limits: Limits | None = None
) -> tuple[ToolStatus, str]:
    if raw.exit_code != EC.ExitStatus.SUCCESS:
        if any(DISK_FULL in m.text for m in msg.errors(parsed)):
            cap = f" ({limits.scratch_mb} MB)" if limits else ""
            return "error", (
                f"scratch space cap{cap} exhausted: TLC's state queue outgrew the disk budget "
                f"(No space left on device; exit {raw.exit_code})"
            )
        return "error", exit_note(raw.exit_code, parsed)
    if simulate:
        return "ok", ""
    final = msg.last(parsed, EC.TLC_STATS)
    if final is None or not QUEUE_DONE.search(final.text):
        return "error", "TLC stopped before exploring every state (states left on the queue)"
    return "ok", ""


def exit_note(exit_code: int | None, parsed: list[Message]) -> str:
    """The exit code with TLC's own first error line, so no consumer shows a bare number."""
    lines = [
        line.strip().lstrip(": ").strip()
        for m in msg.errors(parsed)
        for line in m.text.splitlines()
    ]
    line = next((x for x in lines if x and not msg.is_preamble(x)), "")[:300]
    return f"TLC exited with {exit_code}" + (f": {line}" if line else "")
