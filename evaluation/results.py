"""Plain result dataclasses shared by every phase, the pipeline and the job.

They serialise to JSON with `to_dict()` so `manage.py score --json` and the
database rows carry the same fields.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

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
# `undecided`: the spec's behaviour did not reach the window's position, or a bound decided
# nothing (never a pass; counted as not passed: docs/decisions/0006-p3-follows-traces.md).
WindowVerdict = Literal["pass", "fail", "undecided", "error"]
InvariantVerdict = Literal["holds", "violated", "error"]
# What a result earns, decided where the decision is made
# (docs/decisions/0024-typed-credit-and-run-history.md): the verdict says what TLC found, this
# says whether it counts and, if not, why; pages and exports read it, never the reason's wording.
#   credited      passes (a window) or holds and keeps its credit (an invariant, an action)
#   failed        fails (a window, an action) or is violated (an invariant)
#   undecided     a window no pre-state of the spec could be built for (never a pass)
#   vacuous       holds, but the spec never reaches what it constrains (P4 credit a1/a2)
#   unspecific    passes or holds, but kept by actions that accept transitions the system never
#                 makes, or withheld because conformance does not tie it to the system
#   not_modelled  holds only over state the adapter invents (an expression over no spec variable)
#   absent        not checked: it reads a variable the spec neither has nor maps
#   error         the check itself could not be made (a TLC error, a budget, a bad window value)
Credit = Literal[
    "credited", "failed", "undecided", "vacuous", "unspecific", "not_modelled", "absent", "error"
]
CREDITS: tuple[Credit, ...] = get_args(Credit)
# A verdict's own credit, before any credit rule looks at it.
_BY_VERDICT: dict[str, Credit] = {
    "pass": "credited",
    "holds": "credited",
    "fail": "failed",
    "violated": "failed",
    "undecided": "undecided",
}


def credit_of(verdict: str) -> Credit:
    """The credit a verdict carries when nothing else decides it (an `error` verdict: the check
    could not be made)."""
    return _BY_VERDICT.get(verdict, "error")


class InfrastructureFailure(RuntimeError):
    """The machine, not the spec, ended a check: a tool process killed by a signal the sandbox
    did not send (the kernel's out-of-memory killer, an operator), a sandbox that could not be
    set up, a check that reached its safety-net time limit. It is never a verdict: it leaves
    the scoring (`pipeline.score_spec` does not catch it), and the job retries the attempt or
    says the run could not be scored."""


@dataclass
class ActionOutcome:
    """One action's line on a phase scorecard (P2 fire counts, P3 window pass counts).

    `credit` is set only by P3, which decides whether the action earns its point (credited,
    failed, unspecific); P1 and P2 count fires and make no credit decision (None)."""

    action: str
    passed: int
    total: int
    detail: ActionDetail = field(default_factory=NoDetail)
    credit: Credit | None = None


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
    # Required wherever a window is judged, so no result leaves a phase without its credit.
    credit: Credit = field(kw_only=True)


@dataclass
class InvariantOutcome:
    name: str
    kind: InvariantKind
    verdict: InvariantVerdict
    reason: str = ""
    counterexample: list[CounterexampleState] = field(default_factory=list)
    credit: Credit = field(kw_only=True)  # see WindowOutcome.credit


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
            windows=[WindowOutcome(**_credited(w)) for w in data.get("windows") or []],
            invariants=[InvariantOutcome(**_credited(i)) for i in data.get("invariants") or []],
            duration_seconds=data.get("duration_seconds") or 0.0,
        )


def _credited(row: dict[str, Any]) -> dict[str, Any]:
    """A result as JSON with its credit; one from a scorer before the field carries its
    verdict's (a container image older than the site)."""
    return {"credit": credit_of(row["verdict"]), **row}
