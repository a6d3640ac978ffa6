"""P4 itself: one verdict per contract invariant, the score, and the details of how."""

from __future__ import annotations

import time

from evaluation.details import ExcludedInvariant, InvariantDetails
from evaluation.inputs.adapter_check import identifiers, invented_variables
from evaluation.inputs.contracts import Adapter, Contract
from evaluation.phases.invariants.budget import Budget
from evaluation.phases.invariants.build import (
    absent_variables,
    build_modules,
    reading_absent,
    tlc_flags,
    without_absent,
)
from evaluation.phases.invariants.checking import check_all
from evaluation.phases.invariants.levels import PROPERTY, check_modes
from evaluation.results import InvariantOutcome, PhaseOutcome, PhaseStatus
from evaluation.tla.parsed import ParsedSpec, spec_of

# How the reason of an invariant over invented state begins, and of one over a variable the spec
# does not have at all: prose for the reader; the result's `credit` says which it is.
NOT_MODELLED = "not modelled by the spec"
ABSENT = "not checked"
NO_FAIRNESS_NOTE = (
    "checked under Init /\\ [][Next]_vars without fairness (the spec's Spec declares no WF_/SF_)"
)
NO_SPEC_NOTE = (
    "checked under Init /\\ [][Next]_vars without fairness (the spec defines no Spec to take "
    "fairness from)"
)


def check_invariants(
    spec: str | ParsedSpec, contract: Contract, adapter: Adapter | None = None
) -> PhaseOutcome:
    started = time.monotonic()
    adapter = adapter or Adapter.identity_for(contract)
    excluded: list[ExcludedInvariant] = [
        {"name": e.name, "kind": e.kind, "reason": e.reason} for e in contract.excluded_invariants
    ]
    details: InvariantDetails = {"excluded": excluded, "tlc_flags": tlc_flags(contract)}
    if not contract.invariants:
        details["reason"] = "the task contract defines no checkable invariants"
        return PhaseOutcome("invariant", "n/a", None, details)
    parsed = spec_of(spec)
    absent = absent_variables(parsed, contract, adapter)
    unreadable = {
        name: _unchecked(contract, name, missing)
        for name, missing in reading_absent(contract, absent).items()
    }
    full = contract
    contract = without_absent(contract, absent)
    check = build_modules(parsed, full, adapter)
    budget = Budget(
        joint_deadline=started + float(contract.budget("invariant", "wall_seconds")),
        per_invariant=float(contract.budget("invariant", "per_invariant_seconds")),
        heap_mb=int(contract.budget("invariant", "heap_mb")),
        scratch_mb=int(contract.budget("invariant", "scratch_mb")),
        min_states=int(contract.budget("invariant", "min_states")),
    )
    modes = check_modes(contract)
    live = _live_names(contract, modes)
    verdicts = check_all(check, contract, modes, live, budget) if contract.invariants else {}
    verdicts.update(unreadable)
    contract = full
    outcomes = [verdicts[inv.name] for inv in contract.invariants]
    if absent:
        details["absent"] = absent
    _not_modelled(outcomes, contract, adapter, parsed, details, set(absent))
    note = "" if check.fairness.conjuncts else NO_FAIRNESS_NOTE if check.has_spec else NO_SPEC_NOTE
    for outcome in outcomes:
        if note and outcome.name in live:
            outcome.reason = "; ".join(filter(None, [outcome.reason, note]))
    holds = sum(1 for o in outcomes if o.verdict == "holds")
    details.update(
        {
            "holds": holds,
            "total": len(outcomes),
            "behaviour": (
                f"Init /\\ [][Next]_vars within P2's bound (depth "
                f"{contract.budget('runtime', 'depth')}, "
                f"{contract.budget('runtime', 'max_states')} distinct states)"
            ),
            "liveness_behaviour": "Init /\\ [][Next]_vars /\\ fairness, within the same bound",
            "fairness": [" ".join(c.split()) for c in check.fairness.conjuncts] or "none",
            "fairness_dropped": check.fairness.dropped,
            "check_modes": modes,
            "liveness": sorted(live),
            "runs": budget.runs,
        }
    )
    return PhaseOutcome(
        phase="invariant",
        status=_phase_status(outcomes),
        score=holds / len(outcomes),
        details=details,
        invariants=outcomes,
        duration_seconds=round(time.monotonic() - started, 3),
    )


def _not_modelled(
    outcomes: list[InvariantOutcome],
    contract: Contract,
    adapter: Adapter,
    spec: ParsedSpec,
    details: InvariantDetails,
    absent: set[str],
) -> None:
    """An invariant reading a schema variable the adapter maps to an expression over no spec
    variable cannot pass: that state is the adapter's invention, not the spec's."""
    schema = [v for v in contract.schema if v not in absent]
    invented = invented_variables(adapter, spec, schema)
    if not invented:
        return
    details["not_modelled"] = invented
    reads = {inv.name: identifiers(inv.definition.split("==", 1)[1]) for inv in contract.invariants}
    for outcome in outcomes:
        used = sorted(reads.get(outcome.name, set()) & set(invented))
        if used and outcome.verdict == "holds":
            outcome.verdict, outcome.credit = "error", "not_modelled"
            outcome.reason = (
                f"{NOT_MODELLED}: the adapter maps {', '.join(used)} to an expression "
                "that reads no spec variable, so this invariant cannot be credited"
            )


def _unchecked(contract: Contract, name: str, missing: list[str]) -> InvariantOutcome:
    kind = next(inv.kind for inv in contract.invariants if inv.name == name)
    names = ", ".join(missing)
    return InvariantOutcome(
        name,
        kind,
        "error",
        f"{ABSENT}: it reads {names}, which the spec neither declares nor defines, and no "
        f"adapter maps it; declare {names} in the spec or map it in an adapter "
        f"(`variables: {missing[0]}: <an expression over your variables>`)",
        credit="absent",
    )


def _live_names(contract: Contract, modes: dict[str, str]) -> set[str]:
    """Temporal liveness properties: checked under fairness. Everything (these, state
    invariants, `[][A]_v` safety) is checked on P2's bounded region."""
    return {
        inv.name
        for inv in contract.invariants
        if modes[inv.name] == PROPERTY and inv.kind == "liveness"
    }


def _phase_status(outcomes: list[InvariantOutcome]) -> PhaseStatus:
    verdicts = {o.verdict for o in outcomes}
    if verdicts & {"holds", "violated"}:
        return "ran"
    return "error"
