"""Plain result dataclasses shared by every phase, the pipeline and the job.

They serialise to JSON with `to_dict()` so `manage.py score --json` and the
database rows carry the same fields.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from evaluation.details import (
    ActionDetail,
    CommonDetails,
    CounterexampleState,
    InvariantKind,
    JsonState,
    NoDetail,
    PhaseDetails,
    WindowDetail,
)

PhaseName = Literal["syntax", "runtime", "conformance", "invariant"]
# No phase ends in "timeout" any more: a safety-net time limit raises InfrastructureFailure. The
# board still reads the status on runs stored by scorers before 2.1 (`scoring.TIMEOUT`).
PhaseStatus = Literal["ran", "skipped", "error", "n/a"]
# `undecided`: no pre-state of the spec could be built for the window (not the spec's failure,
# but never a pass either; see docs/ARCHITECTURE.md, P3).
WindowVerdict = Literal["pass", "fail", "undecided", "error"]
InvariantVerdict = Literal["holds", "violated", "error"]


class InfrastructureFailure(RuntimeError):
    """The machine, not the spec, ended a check: a tool process killed by a signal the sandbox
    did not send (the kernel's out-of-memory killer, an operator), a sandbox that could not be
    set up, a check that reached its safety-net time limit. It is never a verdict: it leaves
    the scoring (`pipeline.score_spec` does not catch it), and the job retries the attempt or
    says the run could not be scored."""


@dataclass
class ActionOutcome:
    """One action's line on a phase scorecard (P2 fire counts, P3 window pass counts)."""

    action: str
    passed: int
    total: int
    detail: ActionDetail = field(default_factory=NoDetail)


@dataclass
class WindowOutcome:
    action: str
    trace_id: str
    window_id: str
    actor: str
    pre_state: JsonState
    post_state: JsonState
    verdict: WindowVerdict
    reason: str = ""
    input: Any = None  # the window's message (JSON), None when it has none
    detail: WindowDetail = field(default_factory=WindowDetail)


@dataclass
class InvariantOutcome:
    name: str
    kind: InvariantKind
    verdict: InvariantVerdict
    reason: str = ""
    counterexample: list[CounterexampleState] = field(default_factory=list)


@dataclass
class PhaseOutcome:
    phase: PhaseName
    status: PhaseStatus
    score: float | None
    details: PhaseDetails = field(default_factory=CommonDetails)
    actions: list[ActionOutcome] = field(default_factory=list)
    windows: list[WindowOutcome] = field(default_factory=list)
    invariants: list[InvariantOutcome] = field(default_factory=list)
    duration_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PhaseOutcome:
        """The inverse of `to_dict` (a phase reported as JSON by the scorer container)."""
        return cls(
            phase=data["phase"],
            status=data["status"],
            score=data["score"],
            details=data.get("details") or CommonDetails(),
            actions=[ActionOutcome(**a) for a in data.get("actions") or []],
            windows=[WindowOutcome(**w) for w in data.get("windows") or []],
            invariants=[InvariantOutcome(**i) for i in data.get("invariants") or []],
            duration_seconds=data.get("duration_seconds") or 0.0,
        )
