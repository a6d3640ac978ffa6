"""The invariants checked within the budget: together while a joint run still separates the
verdicts, then each left undecided alone."""

from __future__ import annotations

from collections.abc import Mapping

from evaluation.details import InvariantKind
from evaluation.inputs.contracts import Contract
from evaluation.phases._common import raise_if_timed_out
from evaluation.phases.invariants.budget import Budget
from evaluation.phases.invariants.build import CheckModules
from evaluation.phases.invariants.lasso import replay_lasso
from evaluation.phases.invariants.levels import ACTION, ACTION_LEVEL_REASON, INVARIANT, PROPERTY
from evaluation.phases.invariants.verdicts import (
    completed_without_error,
    error_text,
    temporal_violation,
    vacuity,
    verdict_from_run,
    violated_name,
)
from evaluation.results import InvariantOutcome
from evaluation.tla import assumptions
from evaluation.tla import messages as msg
from evaluation.tla.codes import EC, SETUP_EXITS
from evaluation.tla.sandbox.calls import run_tlc
from evaluation.tla.sandbox.limits import Limits, ToolRun


def check_all(
    check: CheckModules,
    contract: Contract,
    modes: Mapping[str, str],
    live: set[str],
    budget: Budget,
) -> dict[str, InvariantOutcome]:
    kinds = {inv.name: inv.kind for inv in contract.invariants}
    verdicts = {
        name: InvariantOutcome(name, kinds[name], "error", ACTION_LEVEL_REASON, credit="error")
        for name, mode in modes.items()
        if mode == ACTION
    }
    checkable = [inv.name for inv in contract.invariants if modes[inv.name] != ACTION]
    for group_live in (False, True):
        group = [n for n in checkable if (n in live) == group_live]
        verdicts.update(_check_together(check, kinds, modes, group, group_live, budget))
    for inv in contract.invariants:
        if inv.name not in verdicts:
            verdicts[inv.name] = _check_one(
                check, inv.name, inv.kind, modes[inv.name], inv.name in live, budget
            )
    return verdicts


def _check_together(
    check: CheckModules,
    kinds: Mapping[str, InvariantKind],
    modes: Mapping[str, str],
    names: list[str],
    live: bool,
    budget: Budget,
) -> dict[str, InvariantOutcome]:
    """Invariants in one TLC run while that still separates the verdicts.

    - A clean run (every state explored, no error) means each invariant in it holds (or, when
      it explored nothing beyond Init, that none does: the exploration is the same alone).
    - A safety violation names the invariant in TLC's TLC_INVARIANT_VIOLATED_BEHAVIOR message,
      which a spec cannot forge (it contains the generated prefix, a hash of the spec text that
      the text does not contain). BFS explores states in the same order whatever is checked, so
      the bad state it stopped at is also the first an individual run of that invariant would
      find, with the same shortest trace: that invariant is violated with exactly this
      counterexample, and the rest are run together again.
    - A temporal violation (exit VIOLATION_LIVENESS) does not say which property failed unless
      only one was in the run; otherwise the PROPERTYs are checked one by one, and the
      INVARIANTs together again.
    - Anything else (an error, or the joint run's safety-net limit) says nothing about a single
      invariant: all that remain are checked one by one, each with its own safety net.
    """
    verdicts: dict[str, InvariantOutcome] = {}
    remaining = list(names)
    while len(remaining) > 1 and not budget.fatal:
        invariants = [n for n in remaining if modes[n] == INVARIANT]
        properties = [n for n in remaining if modes[n] == PROPERTY]
        cfg = check.cfg(invariants=invariants, properties=properties, live=live)
        limits = budget.joint()
        if limits is None:
            break
        run = _run(check, cfg, limits, budget, f"together: {', '.join(remaining)}")
        if completed_without_error(run):
            vacuous = vacuity(run, budget.min_states)
            for name in remaining:
                verdicts[name] = InvariantOutcome(
                    name,
                    kinds[name],
                    "error" if vacuous else "holds",
                    vacuous or "checked together with the other invariants",
                    credit="vacuous" if vacuous else "credited",
                )
            break
        violated = violated_name(check, run, invariants)
        if violated is None and temporal_violation(run) and len(properties) == 1:
            violated = properties[0]
        if violated is not None:
            verdicts[violated] = verdict_from_run(violated, kinds[violated], run, modes[violated])
            remaining.remove(violated)
        elif temporal_violation(run):
            decided = replay_lasso(check, kinds, properties, run, budget) if live else {}
            verdicts.update(decided)
            remaining = [n for n in remaining if n not in decided] if decided else invariants
        else:
            break
    return verdicts


def _check_one(
    check: CheckModules, name: str, kind: InvariantKind, mode: str, live: bool, budget: Budget
) -> InvariantOutcome:
    if budget.fatal:
        return InvariantOutcome(name, kind, "error", budget.fatal, credit="error")
    cfg = (
        check.cfg(invariants=[name], live=live)
        if mode == INVARIANT
        else check.cfg(properties=[name], live=live)
    )
    run = _run(check, cfg, budget.alone(), budget, name)
    if budget.fatal:
        return InvariantOutcome(name, kind, "error", budget.fatal, credit="error")
    # A joint run that reaches its limit only sends its invariants here; a run alone decides.
    raise_if_timed_out("invariant", run, budget.per_invariant)
    return verdict_from_run(name, kind, run, mode, budget.min_states)


def _run(check: CheckModules, cfg: str, limits: Limits, budget: Budget, label: str) -> ToolRun:
    run = run_tlc(check.modules, check.root, cfg, check.flags, limits, spec=check.spec)
    budget.record(label, run)
    assumed = assumptions.explain(run.messages, check.spec, check.pinned, check.given)
    if assumed:
        budget.fatal = f"TLC could not check it: {assumed} (TLC: {error_text(run)})"
    elif msg.first(run.messages, EC.TLC_PARSING_FAILED) is not None or run.exit_code in SETUP_EXITS:
        budget.fatal = "TLC could not check it: " + error_text(run)
    return run
