"""A joint liveness run's counterexample replayed against each property alone.

The replayed spec's only behaviour is the printed lasso, each step also a step of the spec, the
spec's fairness conjoined: a property it violates is violated by a fair behaviour of the spec.
"""

from __future__ import annotations

from collections.abc import Mapping

from evaluation.details import CounterexampleState, InvariantKind
from evaluation.phases.invariants.budget import Budget
from evaluation.phases.invariants.build import CheckModules
from evaluation.phases.invariants.levels import PROPERTY
from evaluation.phases.invariants.trace import parse_trace
from evaluation.phases.invariants.verdicts import temporal_violation, verdict_from_run
from evaluation.results import InvariantOutcome
from evaluation.tla.layout import spec_first
from evaluation.tla.sandbox.calls import run_tlc
from evaluation.tla.sandbox.limits import ToolRun

# A replay explores one lasso of a few dozen states: far less than a budget. One that reaches
# its limit decides nothing: the property is then checked alone.
LASSO_REPLAY_SECONDS = 300  # a safety net like the others (five times what it was)


def replay_lasso(
    check: CheckModules,
    kinds: Mapping[str, InvariantKind],
    properties: list[str],
    run: ToolRun,
    budget: Budget,
) -> dict[str, InvariantOutcome]:
    """Which properties of a joint liveness run its counterexample violates, each asked of TLC
    alone on a spec whose only behaviour is that lasso (`lasso_module`). A few seconds each,
    instead of a fresh exploration per property; a property the lasso does not violate, or any
    replay that fails, is left undecided for the next run."""
    module = lasso_module(check, parse_trace(run.messages))
    if module is None:
        return {}
    root = f"{check.prefix}Lasso"
    # The lasso's printed values name record fields too: TLC must still read the spec first.
    modules = {**check.modules, **spec_first(root, check.spec_module, module)}
    # Our trace spec stops at the end of a stuttering lasso: that is no deadlock of the spec.
    flags = check.flags if "-deadlock" in check.flags else ["-deadlock", *check.flags]
    verdicts: dict[str, InvariantOutcome] = {}
    for name in properties:
        limits = budget.joint()
        if limits is None:
            break
        limits.wall_seconds = min(limits.wall_seconds, LASSO_REPLAY_SECONDS)
        limits.cpu_seconds = int(limits.wall_seconds * 2) + 5
        limits.long_run = False
        # The lasso is finite by construction (its states are the trace's): no bound, which
        # could cut a cycle longer than P2's depth.
        cfg = (
            check.cfg(properties=[name], live=True)
            .replace(f"SPECIFICATION {check.prefix}Live", f"SPECIFICATION {check.prefix}LSpec")
            .replace(f"CONSTRAINT {check.prefix}Bound\n", "")
        )
        replay = run_tlc(modules, root, cfg, flags, limits, spec=check.spec)
        budget.record(f"replay of the joint counterexample: {name}", replay)
        if temporal_violation(replay):
            outcome = verdict_from_run(name, kinds[name], run, PROPERTY)
            outcome.reason += (
                " (the joint run's counterexample; TLC confirmed that it violates this property "
                "on its own)"
            )
            verdicts[name] = outcome
    return verdicts


def lasso_module(check: CheckModules, trace: list[CounterexampleState]) -> str | None:
    """A module whose only behaviour is the lasso TLC printed, or None when the trace is not a
    complete lasso over the spec's variables.

    Every step must also be a step of the spec (Init, then Next or a stutter) and the spec's
    fairness is conjoined, so a property this behaviour violates is violated by a fair behaviour
    of the spec itself, whatever the printed values were: a value that does not read back the
    same leaves no behaviour, and a property is then never found violated here."""
    states = [s for s in trace if "vars" in s]
    variables = list(check.variables)
    if not states or not variables:
        return None
    end = trace[-1]
    if not (end.get("stuttering") or end.get("back_to")):
        return None
    if any(set(s["vars"]) != set(variables) for s in states):
        return None
    p, n = check.prefix, len(states)
    at = f"{p}At"
    rows = ",\n".join(
        "  <<" + ", ".join(f"({s['vars'][v]})" for v in variables) + ">>" for s in states
    )
    if end.get("stuttering"):
        step = [f"{at} < {n}", f"{at}' = {at} + 1"]
    else:
        back = end.get("back_to")
        if back is None or not 1 <= back <= n:
            return None
        step = [f"{at}' = IF {at} < {n} THEN {at} + 1 ELSE {back}"]
    pick = [f"{v}' = {p}Trace[{at}'][{i}]" for i, v in enumerate(variables, 1)]
    start = [f"{v} = {p}Trace[1][{i}]" for i, v in enumerate(variables, 1)]
    fair = [f"{p}Fair{i}" for i in range(len(check.fairness.conjuncts))]
    spec = [f"{p}LInit", f"[][{p}LNext]_{p}LVars", f"WF_{p}LVars({p}LNext)", *fair]
    return "\n".join(
        [
            f"---- MODULE {p}Lasso ----",
            f"EXTENDS {check.root}",
            f"VARIABLE {at}",
            f"{p}Trace == <<\n{rows}\n>>",
            f"{p}LVars == <<{at}, {p}Vars>>",
            f"{p}LInit == " + _conj([f"{at} = 1", *start, f"({check.init})"]),
            f"{p}LNext == " + _conj([*step, *pick, f"(({check.next}) \\/ UNCHANGED {p}Vars)"]),
            f"{p}LSpec == " + " /\\ ".join(spec),
            "====",
        ]
    )


def _conj(parts: list[str]) -> str:
    return "\n".join(f"  /\\ {part}" for part in parts)
