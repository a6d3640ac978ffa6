"""What a sandboxed call is given, what it returns, and the error for a request it refuses."""

from __future__ import annotations

from dataclasses import dataclass, field

from evaluation.tla.messages import Message


class SandboxError(ValueError):
    """The request itself is invalid (bad module name, reserved argument)."""


@dataclass
class Limits:
    wall_seconds: float = 60
    cpu_seconds: int = 120
    heap_mb: int = 512
    scratch_mb: int = 256
    long_run: bool = False  # full tiered JIT (C2): worth its compile time only on long runs


@dataclass
class ToolRun:
    tool: str
    status: str
    exit_code: int | None
    messages: list[Message]
    output: str
    wall_seconds: float
    version: str
    note: str = ""
    truncated: bool = False
    flags: list[str] = field(default_factory=list)
