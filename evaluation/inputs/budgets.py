"""Per-phase budgets of a task contract (`budgets:` in task.yaml), typed and strict.

Each phase has exactly the keys its code reads, each with one default defined here and nowhere
else (this module is the one list of them). A key a phase does not read is refused when the
contract loads: a budget that is accepted but ignored says one thing and does another.

Work bounds and safety nets. The keys that decide what is explored (`depth`, `max_states`, P3's
`*_steps` bounds, `seed`, `min_states`) are work: TLC's BFS with one worker and a fixed seed
explores the same states in the same order on any machine, so the verdicts are a function of
the spec, the contract and these bounds. `wall_seconds` and `per_invariant_seconds` (and the
CPU limit derived from them) are safety nets against a runaway tool, never part of a verdict:
reaching one raises InfrastructureFailure, the job retries the attempt and at worst says the run
could not be scored (`phases._common.safety_net_reached`).

Why these nets: they are five times what the reference specs needed on a quiet 2-core machine
before scorer 2.1 (60 s for P1 and P2, 300 s for P3 (four times here: it is the largest already),
120 s joint and 60 s per invariant for P4), so that the same machine with the load of
several scorings at once stays well inside them. A net that is reached costs a retry, never a
score: erring wide is cheap. `Budgets.worst_case_seconds` is their sum, and the container's
and the rq job's time limits (`RQ_JOB_TIMEOUT`) stay above it for every contract
(tests/test_contract_budgets.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class SyntaxBudget:
    wall_seconds: float = 300.0  # safety net per SANY call (CPU limit = 2 × wall + 5 s)
    heap_mb: int = 512  # -Xmx of the JVM
    scratch_mb: int = 256  # size cap of the run's scratch space (tmpdir, home)


@dataclass(frozen=True)
class RuntimeBudget:
    wall_seconds: float = 300.0  # safety net for all P2 TLC runs together
    heap_mb: int = 512
    scratch_mb: int = 256  # size cap of TLC's state queue on disk
    depth: int = 100  # BFS bound: TLCGet("level") < depth (P2 and P4 explore the same region)
    max_states: int = 20000  # BFS bound: TLCGet("distinct") < max_states
    seed: int = 1  # TLC -seed (RandomElement); the fingerprint records it


@dataclass(frozen=True)
class ConformanceBudget:
    wall_seconds: float = 1200.0  # safety net for all P3 TLC runs together
    heap_mb: int = 512
    scratch_mb: int = 256
    # Following a trace (docs/decisions/0006-p3-follows-traces.md): the spec's steps
    # allowed between two logged events where the trace saw no change (each leaves the observed
    # projection as it was) ...
    gap_steps: int = 4
    # ... where it saw a change no logged target event explains (events of other actions, or
    # left out of a windows-only corpus), and before a trace's first event ...
    free_gap_steps: int = 6
    # A free gap in which the trace logged k events no window was cut from (their `seq` numbers
    # say so) is k steps longer: each is a step of the system. At most this many steps in all.
    max_gap_steps: int = 32
    # ... and after an event the spec cannot take, to pick the trace up again.
    resync_steps: int = 4
    max_states: int = 200000  # distinct states of one following run (TLCGet("distinct"))
    # What TLC cannot count (one state's successors: an allow-everything Next over dqueue's
    # values; a lookup table's thousands of disjuncts per state): the JVM's own CPU seconds over
    # all of one P3 check's runs. Reached, the events no run decided are undecided, a verdict on
    # the first attempt (the spec's own cost), never the machine's failure. The references
    # spend 5-40 s; the bound sits at a quarter of the 1200 s net, so a machine four times
    # as loaded still reaches it first.
    work_cpu_seconds: float = 300.0
    seed: int = 1


@dataclass(frozen=True)
class InvariantBudget:
    # Safety net for the joint runs (all invariants in one TLC run); reaching it is no verdict
    # either way: the invariants are then checked one by one.
    wall_seconds: float = 600.0
    per_invariant_seconds: float = 300.0  # safety net for each invariant checked alone
    heap_mb: int = 512
    scratch_mb: int = 256
    min_states: int = 2  # a check that explored fewer distinct states is not a pass
    seed: int = 1


BudgetSection = SyntaxBudget | RuntimeBudget | ConformanceBudget | InvariantBudget
PHASE_BUDGETS: dict[str, type[BudgetSection]] = {
    "syntax": SyntaxBudget,
    "runtime": RuntimeBudget,
    "conformance": ConformanceBudget,
    "invariant": InvariantBudget,
}


class BudgetError(ValueError):
    """A budget section names an unknown phase or key, or a value of the wrong type."""


@dataclass(frozen=True)
class Budgets:
    syntax: SyntaxBudget = SyntaxBudget()
    runtime: RuntimeBudget = RuntimeBudget()
    conformance: ConformanceBudget = ConformanceBudget()
    invariant: InvariantBudget = InvariantBudget()

    def get(self, phase: str, key: str) -> float:
        """A budget value: an int for whole-number keys (depth, seed, heap_mb ...)."""
        section = getattr(self, phase, None)
        if section is None or key not in {f.name for f in fields(section)}:
            raise KeyError(f"no budget {phase}.{key}")
        value: float = getattr(section, key)
        return value

    def with_(self, phase: str, **changes: float) -> Budgets:
        """A copy with some keys of one phase changed (checked like the YAML)."""
        current = dataclasses.asdict(getattr(self, phase))
        # Keyword by phase name: the section's class is the phase's (`_section`).
        replaced: dict[str, Any] = {phase: _section(phase, {**current, **changes})}
        return dataclasses.replace(self, **replaced)

    def worst_case_seconds(self, invariants: int) -> float:
        """Wall clock a whole scoring may take: every phase's safety net, plus P4's
        per-invariant runs after its joint runs (the container and job timeouts must stay
        above this)."""
        phases: float = sum(getattr(self, phase).wall_seconds for phase in PHASE_BUDGETS)
        return phases + invariants * self.invariant.per_invariant_seconds

    def as_dict(self) -> dict[str, dict[str, float]]:
        return {phase: dataclasses.asdict(getattr(self, phase)) for phase in PHASE_BUDGETS}


def parse_budgets(value: object) -> Budgets:
    """`budgets:` as read from YAML (None means every default); raises BudgetError."""
    if value is None:
        return Budgets()
    if not isinstance(value, dict):
        raise BudgetError(f"expected a mapping of phases, got {type(value).__name__}")
    unknown = sorted(set(map(str, value)) - set(PHASE_BUDGETS))
    if unknown:
        raise BudgetError(
            f"unknown phase(s) {', '.join(unknown)} (known: {', '.join(PHASE_BUDGETS)})"
        )
    sections: dict[str, Any] = {phase: _section(phase, keys or {}) for phase, keys in value.items()}
    return Budgets(**sections)


def _section(phase: str, keys: object) -> BudgetSection:
    cls = PHASE_BUDGETS[phase]
    if not isinstance(keys, dict):
        raise BudgetError(f"{phase}: expected a mapping, got {type(keys).__name__}")
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(map(str, keys)) - set(known))
    if unknown:
        raise BudgetError(
            f"{phase}: unknown key(s) {', '.join(unknown)} (known: {', '.join(known)})"
        )
    values: dict[str, Any] = {}
    for name, value in keys.items():
        values[name] = _typed(f"{phase}.{name}", str(known[name].type), value)
    return cls(**values)


def _typed(where: str, kind: str, value: object) -> float:
    # bool is an int in Python; `depth: true` is a typo, not 1.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BudgetError(f"{where}: expected a number, got {value!r}")
    if kind == "int":
        if value != int(value):
            raise BudgetError(f"{where}: expected a whole number, got {value!r}")
        value = int(value)
        if where.endswith(".seed"):
            return value
    if value <= 0:
        raise BudgetError(f"{where}: must be positive, got {value!r}")
    number: float = float(value) if kind == "float" else value
    return number
