"""Gating and the composite score: the four phases in order, one `ScoreReport` out.

Rules (DESIGN.md §3.2):
- P1 always runs. P2 needs a module that parses (TLC cannot run anything else), P3 and P4 need
  a module that parses *and* an action that fires at runtime; a phase not reached is recorded as
  `skipped` with the reason and scores 0.
- A task without trace data has P3 `n/a` (score None), whatever the gate says: the phase does
  not exist for that task. `composite()` then renormalises the other weights to sum 1, exactly as
  `leaderboard.aggregate.cell_score` does for verified runs, so the run's stored overall and the
  board agree.
- Overall = 0.15·P1 + 0.15·P2 + 0.35·P3 + 0.35·P4 (`PHASE_WEIGHTS`, the one definition of the
  official weights; `leaderboard.models` imports it).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from evaluation.contracts import Adapter, Contract
from evaluation.results import PhaseOutcome

SCORER_VERSION = "1.0.0"
PHASES = ("syntax", "runtime", "conformance", "invariant")
PHASE_WEIGHTS = {"syntax": 0.15, "runtime": 0.15, "conformance": 0.35, "invariant": 0.35}
NOT_APPLICABLE = "n/a"


class PhaseCrashed(RuntimeError):
    """A phase raised instead of returning an outcome: a scorer bug or a broken environment."""

    def __init__(self, phase: str, error: BaseException):
        super().__init__(f"internal error in the {phase} phase: {type(error).__name__}: {error}")
        self.phase = phase


@dataclass
class ScoreReport:
    outcomes: dict[str, PhaseOutcome]
    overall: float
    fingerprint: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "overall": self.overall,
            "fingerprint": self.fingerprint,
            "phases": {name: asdict(outcome) for name, outcome in self.outcomes.items()},
        }


def composite(outcomes: dict[str, PhaseOutcome]) -> float:
    """Weighted overall; missing/skipped/failed phases count 0, `n/a` phases leave the formula."""
    applicable = [p for p in PHASES if p not in outcomes or outcomes[p].status != NOT_APPLICABLE]
    weight = sum(PHASE_WEIGHTS[p] for p in applicable)
    if weight <= 0:
        return 0.0
    total = sum(PHASE_WEIGHTS[p] * _score(outcomes.get(p)) for p in applicable)
    return total / weight


def _score(outcome: PhaseOutcome | None) -> float:
    return outcome.score if outcome is not None and outcome.score is not None else 0.0


def skipped(phase: str, reason: str) -> PhaseOutcome:
    return PhaseOutcome(phase=phase, status="skipped", score=0.0, details={"reason": reason})


def not_applicable(phase: str, reason: str) -> PhaseOutcome:
    return PhaseOutcome(phase=phase, status=NOT_APPLICABLE, score=None, details={"reason": reason})


def score_spec(
    spec_text: str,
    contract: Contract,
    windows: list[dict],
    adapter: Adapter | None = None,
    on_phase: Callable[[PhaseOutcome], None] | None = None,
    cfg_text: str | None = None,
) -> ScoreReport:
    """Score one spec through all four phases; `on_phase(outcome)` as each one finishes."""
    from evaluation.phases import conformance, invariants, runtime, syntax

    adapter = adapter or Adapter.identity_for(contract)
    outcomes: dict[str, PhaseOutcome] = {}

    def record(phase: str, compute: Callable[[], PhaseOutcome]) -> PhaseOutcome:
        started = time.monotonic()
        try:
            outcome = compute()
        except Exception as exc:
            raise PhaseCrashed(phase, exc) from exc
        if not outcome.duration_seconds:
            outcome.duration_seconds = round(time.monotonic() - started, 3)
        outcomes[phase] = outcome
        if on_phase is not None:
            on_phase(outcome)
        return outcome

    p1 = record("syntax", lambda: syntax.check_syntax(spec_text, contract))
    parses = syntax.syntax_passed(p1)
    if parses:
        p2 = record("runtime", lambda: runtime.check_runtime(spec_text, contract, cfg_text))
        if runtime.runtime_passed(p2):
            gate = ""
        elif p2.status == "ran":
            gate = "no action of Next fired without an error (P2 = 0)"
        else:
            gate = f"the runtime check ended with status {p2.status} (P2 = 0)"
    else:
        gate = (
            "the module does not parse (P1 < 1)"
            if p1.status == "ran"
            else f"the syntax check ended with status {p1.status}"
        )
        record("runtime", lambda: skipped("runtime", gate))

    if not contract.has_traces:
        reason = contract.no_traces_reason or "the task has no trace data"
        record("conformance", lambda: not_applicable("conformance", reason))
    elif gate:
        record("conformance", lambda: skipped("conformance", gate))
    else:
        record(
            "conformance",
            lambda: conformance.check_conformance(spec_text, contract, windows, adapter),
        )

    if gate:
        record("invariant", lambda: skipped("invariant", gate))
    else:
        record("invariant", lambda: invariants.check_invariants(spec_text, contract, adapter))

    return ScoreReport(
        outcomes=outcomes,
        overall=composite(outcomes),
        fingerprint=fingerprint(contract, windows, adapter, cfg_text, outcomes),
    )


def windows_hash(windows: list[dict]) -> str:
    """Order-independent sha256 of the windows used (canonical JSON, sorted by window id)."""
    canonical = sorted(json.dumps(w, sort_keys=True, separators=(",", ":")) for w in windows)
    return hashlib.sha256("\n".join(canonical).encode()).hexdigest()


def fingerprint(
    contract: Contract,
    windows: list[dict],
    adapter: Adapter,
    cfg_text: str | None = None,
    outcomes: dict[str, PhaseOutcome] | None = None,
) -> dict:
    """What a score depends on besides the spec (DESIGN.md §3.3).

    TLC flags come from each phase's `details["tlc_flags"]` when the phase reports them (the
    phase knows what it ran); P4's are derived from the contract's deadlock policy.
    """
    from evaluation.phases import invariants
    from evaluation.tla import tools

    adapter_text = json.dumps(asdict(adapter), sort_keys=True)
    runtime_budget = contract.budgets.get("runtime", {})
    return {
        "scorer_version": SCORER_VERSION,
        **tools.fingerprint(),
        "task": contract.slug,
        "contract_version": contract.version,
        "windows_sha256": windows_hash(windows),
        "window_count": len(windows),
        "adapter": "identity" if adapter.identity else "custom",
        "adapter_sha256": hashlib.sha256(adapter_text.encode()).hexdigest(),
        "tlc_flags": {
            "all": ["-tool", "-workers", "1"],
            **{
                phase: outcome.details["tlc_flags"]
                for phase, outcome in (outcomes or {}).items()
                if "tlc_flags" in outcome.details
            },
            "invariant": invariants.tlc_flags(contract),
        },
        "seeds": list(runtime_budget.get("seeds", [])),
        "cfg_sha256": hashlib.sha256(cfg_text.encode()).hexdigest() if cfg_text else None,
        "weights": dict(PHASE_WEIGHTS),
    }
