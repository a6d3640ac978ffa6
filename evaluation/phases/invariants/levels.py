"""How TLC must be asked to check each invariant, from the level SANY gives its formula.

Constant or state level: an `INVARIANT`; temporal level: a `PROPERTY`; action level (primes
without `[]`): neither, an `error` asking the contract author for `[][...]_vars`. One SANY run
per contract (cached) on the contract module and a probe module with `(Name)'` and
`ENABLED (Name)` per invariant, each on its own line, says which probe SANY rejects.
"""

from __future__ import annotations

import re

from evaluation.inputs.contracts import Contract
from evaluation.phases._common import raise_if_timed_out
from evaluation.phases.invariants.build import contract_module_text, name_prefix
from evaluation.tla.sandbox.calls import run_sany
from evaluation.tla.sandbox.limits import Limits

# How TLC is asked to check an invariant, from the level of its formula.
INVARIANT, PROPERTY, ACTION = "INVARIANT", "PROPERTY", "action"
ACTION_LEVEL_REASON = (
    "its definition is an action formula (it primes variables but is not under [] ): TLC can "
    "check it neither as an INVARIANT nor as a PROPERTY; the contract must state it as "
    "[][...]_vars to make it a safety property over steps"
)
# A safety net: SANY on the contract module cannot be bounded by work, and its answer decides
# how each invariant is checked, so reaching this limit stops the scoring (no fallback guess).
LEVEL_PROBE_LIMITS = Limits(wall_seconds=300, cpu_seconds=300, heap_mb=256)
_LEVEL_ERROR = re.compile(
    r"^line (\d+), col \d+ to line \d+, col \d+ of module (\w+)\s*\n+Level error"
)


def check_modes(contract: Contract) -> dict[str, str]:
    """`{name: INVARIANT | PROPERTY | ACTION}` from the level SANY gives each definition."""
    names = tuple(inv.name for inv in contract.invariants)
    contract_text = contract_module_text("SMBLevels", contract)
    levels = _probe_levels(contract_text, names)
    if levels is None:
        return {
            inv.name: INVARIANT if inv.kind == "safety" else PROPERTY for inv in contract.invariants
        }
    return levels


# SANY's answers, per contract text. Only answers are kept: a probe that timed out or crashed
# (a loaded machine) is asked again next time, never remembered as "unknown" for the life of
# the worker.
_LEVELS_CACHE: dict[tuple[str, tuple[str, ...]], dict[str, str] | None] = {}
LEVELS_CACHE_SIZE = 64


def _probe_levels(contract_text: str, names: tuple[str, ...]) -> dict[str, str] | None:
    key = (contract_text, names)
    if key in _LEVELS_CACHE:
        return _LEVELS_CACHE[key]
    answered, levels = _ask_levels(contract_text, names)
    if answered:
        if len(_LEVELS_CACHE) >= LEVELS_CACHE_SIZE:
            _LEVELS_CACHE.pop(next(iter(_LEVELS_CACHE)))
        _LEVELS_CACHE[key] = levels
    return levels


def _ask_levels(contract_text: str, names: tuple[str, ...]) -> tuple[bool, dict[str, str] | None]:
    """(SANY answered, levels); levels None when SANY's answer does not give them."""
    prefix = name_prefix(contract_text)
    probe = f"{prefix}Probe"
    lines = [f"---- MODULE {probe} ----", "EXTENDS SMBLevels"]
    state_line: dict[int, str] = {}
    action_line: dict[int, str] = {}
    for name in names:
        state_line[len(lines) + 1] = name
        lines.append(f"{prefix}S_{name} == ({name})'")
        action_line[len(lines) + 1] = name
        lines.append(f"{prefix}A_{name} == ENABLED ({name})")
    lines.append("====")
    modules = {"SMBLevels": contract_text, probe: "\n".join(lines) + "\n"}
    run = run_sany(modules, probe, LEVEL_PROBE_LIMITS)
    raise_if_timed_out("invariant", run, LEVEL_PROBE_LIMITS.wall_seconds)
    if run.status == "ok":
        return True, dict.fromkeys(names, INVARIANT)
    if run.status != "error" or not run.output.strip():
        return False, None
    failed = _level_error_lines(run.output, probe)
    if not failed or not failed <= state_line.keys() | action_line.keys():
        return True, None  # the contract module itself is wrong (or SANY said something else)
    modes: dict[str, str] = {}
    for line, name in state_line.items():
        if line not in failed:
            modes[name] = INVARIANT
    for line, name in action_line.items():
        modes.setdefault(name, PROPERTY if line in failed else ACTION)
    return True, modes


def _level_error_lines(output: str, module: str) -> set[int]:
    """Lines of `module` with a SANY level error; {-1} when some other error is reported."""
    section = output.split("*** Errors:", 1)[-1] if "*** Errors:" in output else ""
    blocks = [b.strip() for b in re.split(r"\n\s*\n(?=line \d+, col)", section)][1:]
    lines: set[int] = set()
    for block in blocks:
        match = _LEVEL_ERROR.match(block)
        lines.add(int(match.group(1)) if match and match.group(2) == module else -1)
    return lines
