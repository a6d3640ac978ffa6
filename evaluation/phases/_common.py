"""Small helpers shared by the phases (contract access, limits)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from evaluation.inputs.budgets import Budgets, parse_budgets
from evaluation.inputs.contracts import ContractLike
from evaluation.results import InfrastructureFailure
from evaluation.tla.sandbox.limits import Limits, ToolRun
from evaluation.tla.sandbox.precheck import DEFAULT_ALLOWED

__all__ = [
    "ContractLike",
    "allowed_modules",
    "budget",
    "budgets_of",
    "field",
    "limits_for",
    "raise_if_timed_out",
    "safety_net_reached",
]


def field(obj: ContractLike, name: str, default: Any = None) -> Any:
    """A contract field whether the contract is an object or a plain dict."""
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def budgets_of(contract: ContractLike) -> Budgets:
    """The contract's typed budgets; a plain-dict contract (tests, bench) goes through the same
    strict parser, so its unknown keys are refused and its defaults are the contract's."""
    value = field(contract, "budgets", None)
    return value if isinstance(value, Budgets) else parse_budgets(value)


def budget(contract: ContractLike, phase: str, key: str) -> float:
    return budgets_of(contract).get(phase, key)


def allowed_modules(contract: ContractLike) -> set[str]:
    return set(field(contract, "extends_allowed", None) or DEFAULT_ALLOWED)


def limits_for(contract: ContractLike, phase: str) -> Limits:
    wall = float(budget(contract, phase, "wall_seconds"))
    return Limits(
        wall_seconds=wall,
        cpu_seconds=int(wall * 2) + 5,
        heap_mb=int(budget(contract, phase, "heap_mb")),
        scratch_mb=int(budget(contract, phase, "scratch_mb")),
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
