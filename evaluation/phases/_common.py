"""Small helpers shared by the phases (contract access, limits)."""

from __future__ import annotations

from evaluation.inputs.budgets import Budgets, parse_budgets
from evaluation.tla.sandbox.limits import Limits
from evaluation.tla.sandbox.precheck import DEFAULT_ALLOWED


def field(obj, name: str, default=None):
    """A contract field whether the contract is an object or a plain dict."""
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def budgets_of(contract) -> Budgets:
    """The contract's typed budgets; a plain-dict contract (tests, bench) goes through the same
    strict parser, so its unknown keys are refused and its defaults are the contract's."""
    value = field(contract, "budgets", None)
    return value if isinstance(value, Budgets) else parse_budgets(value)


def budget(contract, phase: str, key: str):
    return budgets_of(contract).get(phase, key)


def allowed_modules(contract) -> set[str]:
    return set(field(contract, "extends_allowed", None) or DEFAULT_ALLOWED)


def limits_for(contract, phase: str) -> Limits:
    wall = float(budget(contract, phase, "wall_seconds"))
    return Limits(
        wall_seconds=wall,
        cpu_seconds=int(wall * 2) + 5,
        heap_mb=int(budget(contract, phase, "heap_mb")),
        scratch_mb=int(budget(contract, phase, "scratch_mb")),
    )
