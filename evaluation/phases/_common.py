"""Small helpers shared by the syntax and runtime phases (contract access, limits)."""

from __future__ import annotations

from evaluation.tla.sandbox import DEFAULT_ALLOWED, Limits


def field(obj, name: str, default=None):
    """A contract field whether the contract is an object or a plain dict."""
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def budget(contract, phase: str, key: str, default):
    value = field(field(field(contract, "budgets", {}) or {}, phase, {}) or {}, key, None)
    return default if value is None else value


def allowed_modules(contract) -> set[str]:
    return set(field(contract, "extends_allowed", None) or DEFAULT_ALLOWED)


def limits_for(contract, phase: str, default_wall: float) -> Limits:
    wall = float(budget(contract, phase, "wall_seconds", default_wall))
    return Limits(
        wall_seconds=wall,
        cpu_seconds=int(wall * 2) + 5,
        heap_mb=int(budget(contract, phase, "heap_mb", 512)),
        scratch_mb=int(budget(contract, phase, "scratch_mb", 256)),
    )
