"""What a sandboxed call is given, what it returns, and the error for a request it refuses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from evaluation.tla.messages import Message
from evaluation.tla.sandbox.capture import OUTPUT_HEAD_BYTES

# ok: the tool ran to its end and said so; error: it ended reporting an error (or the request was
# refused); timeout: a time limit killed it; crashed: it never ran or ended abnormally.
ToolStatus = Literal["ok", "error", "timeout", "crashed"]


class SandboxError(ValueError):
    """The request itself is invalid (bad module name, reserved argument)."""


@dataclass
class Limits:
    wall_seconds: float = 60
    cpu_seconds: int = 120
    heap_mb: int = 512
    scratch_mb: int = 256
    long_run: bool = False  # full tiered JIT (C2): worth its compile time only on long runs
    # How much of the output's beginning is kept (its last 100 kB always are): a call whose
    # reader needs every line asks for more.
    output_head_bytes: int = OUTPUT_HEAD_BYTES
    # The work bound for what TLC cannot count (one expression's evaluation: an ASSUME, a
    # constant, one state's guard): the tool's own CPU seconds, which another process's load
    # does not consume. Reached, the tool is killed and the run is the spec's verdict
    # (`ToolRun.work_exceeded`), unlike the wall and CPU nets above, which are the machine's.
    work_cpu_seconds: float | None = None


@dataclass
class ToolRun:
    tool: Literal["sany", "tlc"]
    status: ToolStatus
    exit_code: int | None
    messages: list[Message]
    output: str
    wall_seconds: float
    version: str
    note: str = ""
    truncated: bool = False
    flags: list[str] = field(default_factory=list)
    # The tool's CPU seconds (None when it was not reaped here), and whether it was killed for
    # reaching `Limits.work_cpu_seconds`: the spec's own work, a verdict.
    cpu_seconds: float | None = None
    work_exceeded: bool = False
