"""The phase's safety nets (time limits, never verdicts) and the record of its TLC runs."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from evaluation.details import InvariantRun
from evaluation.tla.sandbox.limits import Limits, ToolRun


@dataclass
class Budget:
    """Joint runs share `invariants.wall_seconds`; every invariant left undecided then gets its
    own `per_invariant_seconds`, whatever the joint runs used. Both are safety nets: a joint run
    that reaches its net decides nothing, a lone one stops the scoring (`checking._check_one`)."""

    joint_deadline: float
    per_invariant: float
    heap_mb: int
    scratch_mb: int
    min_states: int
    runs: list[InvariantRun] = field(default_factory=list)
    # Set when TLC rejects the modules or cfg themselves: every run would fail the same way.
    fatal: str = ""

    def record(self, label: str, run: ToolRun) -> None:
        """One TLC run of the phase, for its details: what it checked and how it ended."""
        self.runs.append(
            {
                "checked": label,
                "status": run.status,
                "exit_code": run.exit_code,
                "seconds": round(run.wall_seconds, 3),
            }
        )

    def joint(self) -> Limits | None:
        left = self.joint_deadline - time.monotonic()
        return self._limits(left) if left >= 1 else None

    def alone(self) -> Limits:
        return self._limits(self.per_invariant)

    def _limits(self, wall: float) -> Limits:
        return Limits(
            wall_seconds=wall,
            cpu_seconds=int(wall * 2) + 5,
            heap_mb=self.heap_mb,
            scratch_mb=self.scratch_mb,
            long_run=True,
        )
