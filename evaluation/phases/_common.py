"""Small helpers shared by the phases (limits, the modules a spec may extend)."""

from __future__ import annotations

from typing import NoReturn

from evaluation.inputs.contracts import Contract
from evaluation.results import InfrastructureFailure
from evaluation.tla.sandbox.limits import Limits, ToolRun
from evaluation.tla.sandbox.precheck import DEFAULT_ALLOWED

__all__ = [
    "allowed_modules",
    "limits_for",
    "raise_if_timed_out",
    "safety_net_reached",
]


def allowed_modules(contract: Contract) -> set[str]:
    return set(contract.extends_allowed or DEFAULT_ALLOWED)


def limits_for(contract: Contract, phase: str) -> Limits:
    wall = float(contract.budget(phase, "wall_seconds"))
    return Limits(
        wall_seconds=wall,
        cpu_seconds=int(wall * 2) + 5,
        heap_mb=int(contract.budget(phase, "heap_mb")),
        scratch_mb=int(contract.budget(phase, "scratch_mb")),
    )


def safety_net_reached(phase: str, seconds: float, note: str = "") -> NoReturn:
    """A phase's wall-clock or CPU limit was reached. Its checks are bounded by work (depth,
    distinct states), so only a loaded or broken machine, or a contract whose work bounds its
    safety net cannot cover, gets here: no verdict may stand on it
    (docs/decisions/0004-work-bounds-not-time.md)."""
    why = f" ({note})" if note else ""
    raise InfrastructureFailure(
        f"the {phase} check reached its safety-net time limit of {seconds:g} s{why}: the scoring "
        "stopped, this is not a verdict on your spec"
    )


def raise_if_timed_out(phase: str, run: ToolRun, seconds: float) -> None:
    if run.status == "timeout":
        safety_net_reached(phase, seconds, run.note)
