"""P3 conformance: every window of every target action checked against the spec, batched.

See the package modules for the parts: `cases` (validation, de-duplication, negative windows),
`auxstate` (the auxiliary-state rule), `generator` (the wrapper module), `runner` (chunks,
verdicts, error isolation) and `diagnose` (successors and diffs for failing windows).

Score (DESIGN.md §3.2): the mean over target actions with at least one window of [every window of
the action passes]. A window with an error verdict does not pass. Specificity is reported beside
the score and never enters it.
"""

from __future__ import annotations

import secrets
import time

from evaluation.inputs import adapter_text
from evaluation.inputs.adapter_check import spec_problems
from evaluation.inputs.contracts import Adapter
from evaluation.phases.conformance import auxstate, diagnose
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import (
    build_cases,
    is_full,
    negative_cases,
    validate_window,
)
from evaluation.phases.conformance.credit import refusal_text
from evaluation.phases.conformance.runner import TLC_ARGS, Budget, SetupError, check_cases
from evaluation.phases.conformance.spectext import (
    module_name,
    spec_constants,
    spec_variables,
    substitute,
)
from evaluation.phases.conformance.vocab import schema_vocab
from evaluation.results import ActionOutcome, PhaseOutcome, WindowOutcome
from evaluation.tla import assumptions


def check_conformance(spec_text: str, contract, windows: list[dict], adapter=None) -> PhaseOutcome:
    start = time.monotonic()
    adapter = adapter or Adapter.identity_for(contract)
    outcome = _check(spec_text, contract, windows, adapter, start)
    outcome.duration_seconds = round(time.monotonic() - start, 3)
    return outcome


def _phase_error(reason: str, **details) -> PhaseOutcome:
    return PhaseOutcome("conformance", "error", None, details={"error": reason, **details})


def _check(spec_text, contract, windows, adapter, start) -> PhaseOutcome:
    if not windows:
        # A task with traces is never n/a here: that would hand P3's weight to the other phases
        # (the pipeline records n/a only for tasks without trace data).
        return _phase_error(
            f"the task {contract.slug!r} names traces but no trace window was given: its corpus "
            "is empty or was not imported; conformance cannot be scored"
        )
    missing = [a for a in contract.actions if a not in adapter.actions]
    if missing:
        return _phase_error(f"the adapter has no expression for target action(s) {missing}")
    refused = spec_problems(adapter, spec_text)
    if refused:
        return _phase_error("the adapter is refused: " + "; ".join(refused))
    vocab = schema_vocab(contract)
    observed = _constrained(contract, windows)
    views = _views(contract, observed)
    reasons = [
        validate_window(w, contract, vocab) or _view_problem(w, views, observed, vocab)
        for w in windows
    ]
    cases = build_cases(windows, [not r for r in reasons])
    negatives = negative_cases(cases, vocab, set(views))
    variables = spec_variables(spec_text)
    declared = set(spec_constants(spec_text))
    init, nxt = adapter_text.behaviour(adapter, spec_text)
    plan = gen.Plan(
        spec_module=module_name(spec_text) or contract.module,
        init=init,
        next=nxt,
        nonce=secrets.token_hex(6),
        adapter=adapter,
        observed=observed,
        vocab=vocab,
        views=views,
        spec_variables=variables,
        constants={
            k: v
            for k, v in {**_spec_pinned(contract, adapter), **adapter.constants}.items()
            if k in declared
        },
    )
    actions = [a for a in contract.actions if any(c.action == a for c in cases + negatives)]
    wall = float(contract.budget("conformance", "wall_seconds"))
    budget = Budget(
        deadline=start + wall,
        heap_mb=int(contract.budget("conformance", "heap_mb")),
        scratch_mb=int(contract.budget("conformance", "scratch_mb")),
        seed=int(contract.budget("conformance", "seed")),
    )
    try:
        everything = cases + negatives
        aux, aux_text, refused, decided = auxstate.choose(
            plan, spec_text, everything, actions, contract, budget
        )
        results = check_cases(plan, spec_text, everything, actions, aux, budget, decided)
    except SetupError as exc:
        assumed = assumptions.explain(
            exc.messages, spec_text, dict(contract.constants), dict(adapter.constants)
        )
        if assumed:
            return _phase_error(f"{assumed} (TLC: {exc})")
        return _phase_error(_explain(str(exc), adapter, actions))
    real, neg = results[: len(cases)], results[len(cases) :]
    failing = [i for i, r in enumerate(real) if r.verdict == "fail"]
    closest, pre_diffs = _diagnose(plan, spec_text, cases, failing, real, actions, aux, budget)
    window_outcomes = _windows(
        windows, reasons, cases, real, closest, _undecidable(plan, cases, real, aux), pre_diffs
    )
    action_outcomes, score, per_action = _actions(contract, window_outcomes, negatives, neg)
    passed = sum(1 for w in window_outcomes if w.verdict == "pass")
    details = {
        "rule": "zero tolerance: an action scores 1 only if every one of its windows passes",
        "per_action": per_action,
        "pooled_rate": round(passed / len(window_outcomes), 6),
        "undecided": sum(1 for w in window_outcomes if w.verdict == "undecided"),
        "windows": len(window_outcomes),
        "distinct_cases": len(cases),
        "negative_cases": len(negatives),
        "auxiliary_state": {"rule": aux.kind, "description": aux_text},
        **_state_mapping(plan, refused),
        "failing_windows": [
            {
                "window_id": w.window_id,
                "action": w.action,
                "verdict": w.verdict,
                "reason": w.reason,
                "closest": w.detail.get("closest", []),
                **({"hint": w.detail["hint"]} if "hint" in w.detail else {}),
            }
            for w in window_outcomes
            if w.verdict != "pass"
        ],
        "tlc_runs": budget.runs,
        "tlc_flags": list(TLC_ARGS),
    }
    if budget.timed_out:
        # The timeout rule (pipeline.TIMEOUT_RULE): the verdicts reached are shown, not counted.
        details["score_if_counted"] = score
        return PhaseOutcome(
            "conformance", "timeout", 0.0, details, action_outcomes, window_outcomes
        )
    return PhaseOutcome("conformance", "ran", score, details, action_outcomes, window_outcomes)


def _state_mapping(plan, refused: list[dict]) -> dict:
    """The adapter's state mappings: which the spec's behaviour confirmed, which it refused."""
    if not plan.adapter.state:
        return {}
    return {
        "state_mapping": {
            "credited": gen.state_mapped(plan),
            "refused": [{**r, "text": refusal_text(r)} for r in refused],
        }
    }


def _spec_pinned(contract, adapter) -> dict[str, str]:
    # `ToSpec` is substituted by the generator like in any adapter expression.
    return {k: adapter_text.spec_value(v, adapter, "ToSpec") for k, v in contract.constants.items()}


def _constrained(contract, windows) -> list[str]:
    """Schema variables a window may constrain: the observed ones and any a window mentions.
    Unobserved ones (spin's callType) stay out of the projection, so a spec exposing them
    under other names needs no adapter entry for them here."""
    named = {v for w in windows for side in ("pre_state", "post_state") for v in w.get(side) or {}}
    return [v for v, var in contract.schema.items() if var.observed or v in named]


def _views(contract, observed: list[str]) -> dict[str, str]:
    """The contract's views of the observed variables, its pinned constants written in."""
    constants = {k: f"({v})" for k, v in contract.constants.items()}
    return {
        v: substitute(contract.schema[v].view, constants)
        for v in observed
        if contract.schema[v].view
    }


def _view_problem(window: dict, views: dict[str, str], observed: list[str], vocab) -> str:
    """'' unless a viewed variable is given without all the variables its view reads."""
    for side in ("pre_state", "post_state"):
        state = window.get(side) or {}
        for var in sorted(views):
            if var not in state:
                continue
            for read in gen.view_reads(views[var], observed):
                if read not in state or not is_full(state[read], vocab[read]):
                    return (
                        f"{side}: the contract compares {var} through a view that needs "
                        f"{read} given in full"
                    )
    return ""


def _explain(problem: str, adapter, actions: list[str]) -> str:
    hints = [a for a in actions if adapter.actions[a].split("(")[0].strip() in problem]
    prefix = f"adapter action(s) {hints} do not resolve in the spec: " if hints else ""
    return prefix + "the conformance wrapper could not be checked: " + problem


def _diagnose(plan, spec_text, cases, failing, results, actions, aux, budget):
    """Failing case index -> its closest successors, and -> where the mappings of a pre-state
    built entirely from the window disagree with it."""
    if not failing:
        return {}, {}
    # The successors shown are those of the pre-states the action failed from.
    sub = aux.subset(failing, {i: results[i].failing for i in failing})
    viewed: dict[int, dict] = {}
    pre: dict[int, list[dict]] = {}
    chosen = [cases[i] for i in failing]
    found = diagnose.successors(plan, spec_text, chosen, actions, sub, budget, viewed, pre)
    if found is None:
        return {}, {}
    closest = {
        i: diagnose.closest(found[k], {**cases[i].post, **viewed.get(k, {})})
        for k, i in enumerate(failing)
    }
    return closest, {i: pre[k] for k, i in enumerate(failing) if pre.get(k)}


def _undecidable(plan, cases, results, aux) -> dict[int, str]:
    """Failing case index -> the spec variables no credited state could give values: the case
    is not built from its window and no explored state of the spec shows its pre-state. A
    failure there says nothing about the spec's action, so the verdict is `undecided`, never
    `fail` (and it counts as not passed)."""
    out = {}
    for ci, (case, result) in enumerate(zip(cases, results, strict=True)):
        if result.verdict != "fail" or gen.built(plan, case) or result.freedom:
            continue
        out[ci] = ", ".join(v for v in plan.spec_variables if v not in gen.pinned_vars(plan, case))
    return out


def _windows(
    windows, reasons, cases, results, closest, undecidable, pre_diffs=None
) -> list[WindowOutcome]:
    by_window: dict[int, int] = {}
    for ci, case in enumerate(cases):
        for wi in case.windows:
            by_window[wi] = ci
    out = []
    for wi, window in enumerate(windows):
        detail: dict = {}
        if reasons[wi]:
            verdict, reason = "error", f"window value check: {reasons[wi]}"
        else:
            ci = by_window[wi]
            r = results[ci]
            verdict, reason = r.verdict, r.reason
            detail["pre_state_candidates"] = r.freedom
            if ci in undecidable:
                verdict = "undecided"
                reason = (
                    "no state the spec reaches from Init (within the exploration bounds) shows "
                    "this window's pre-state, and the spec keeps state the window does not "
                    f"give ({undecidable[ci]})"
                )
                detail["hint"] = (
                    f"add a state mapping for {undecidable[ci]} to the adapter (`state:`, an "
                    "expression over the window's observed state `obs`); it is credited when "
                    "the spec's reachable states agree with it"
                )
            elif r.verdict == "fail":
                detail["closest"] = closest.get(ci, [])
                reason = _fail_reason(r, detail["closest"], bool(cases[ci].pre))
                if r.freedom == 0 and (pre_diffs or {}).get(ci):
                    detail["pre_differences"] = pre_diffs[ci]
                    reason += "; the mappings show " + _diff_text(pre_diffs[ci])
        out.append(
            WindowOutcome(
                action=str(window.get("action")),
                trace_id=str(window.get("trace_id", "")),
                window_id=str(window.get("window_id", wi)),
                actor=str(window.get("actor")),
                pre_state=window.get("pre_state") or {},
                post_state=window.get("post_state") or {},
                verdict=verdict,
                reason=reason,
                input=window.get("input"),
                detail=detail,
            )
        )
    return out


def _fail_reason(result, closest, has_pre: bool = True) -> str:
    if result.freedom == 0:
        return (
            "no pre-state of the spec matches the window's pre-state (every spec variable was "
            "built from the window, but the adapter's variable mappings of that state do not "
            "show the window's values: the spec cannot represent them)"
            if has_pre
            else "no pre-state of the spec matches the window's pre-state"
        )
    some = ""
    if result.freedom > 1:
        failed = len(result.failing) if result.failed_from is None else result.failed_from
        some = (
            f"from {failed} of the {result.freedom} spec states that show the window's "
            "pre-state (each must pass): "
        )
    if not closest:
        return some + "the action is not enabled from the window's pre-state"
    return (
        some
        + "post-state not reachable in one step; closest successor differs in "
        + _diff_text(closest[0]["differences"])
    )


def _diff_text(diff: list[dict]) -> str:
    return "; ".join(
        f"{d['variable']}"
        + (f"[{d['key']}]" if "key" in d else "")
        + f": spec {d['spec']!r}, trace {d['trace']!r}"
        for d in diff[:4]
    )


def _actions(contract, window_outcomes, negatives, neg_results):
    per_action, outcomes, finals = {}, [], []
    for action in contract.actions:
        mine = [w for w in window_outcomes if w.action == action]
        passed = sum(1 for w in mine if w.verdict == "pass")
        spec = _specificity(action, negatives, neg_results)
        row = {
            "passed": passed,
            "total": len(mine),
            # Undecided windows count as not passed (a spec cannot gain by making windows
            # undecidable) but are shown apart from failures: they ask for a state mapping.
            "failed": sum(1 for w in mine if w.verdict == "fail"),
            "undecided": sum(1 for w in mine if w.verdict == "undecided"),
            "errors": sum(1 for w in mine if w.verdict == "error"),
            "specificity": spec,
        }
        if mine:
            final = 1 if passed == len(mine) else 0
            finals.append(final)
            row.update(zero_tolerance=final, pass_rate=round(passed / len(mine), 6))
        else:
            row.update(zero_tolerance=None, pass_rate=None, note="no windows: not scored")
        per_action[action] = row
        outcomes.append(ActionOutcome(action, passed, len(mine), dict(row)))
    score = round(sum(finals) / len(finals), 6) if finals else None
    return outcomes, score, per_action


def _specificity(action, negatives, results) -> dict:
    mine = [(c, r) for c, r in zip(negatives, results, strict=True) if c.action == action]
    accepted = [(c, r) for c, r in mine if r.verdict == "pass"]
    families = {}
    for kind in ("neg-post", "neg-step"):
        of_kind = [r for c, r in mine if c.kind == kind]
        families[kind] = {
            "checked": len(of_kind),
            "wrongly_accepted": sum(1 for r in of_kind if r.verdict == "pass"),
            "errors": sum(1 for r in of_kind if r.verdict == "error"),
        }
    return {
        "checked": len(mine),
        "wrongly_accepted": len(accepted),
        "by_family": families,
        "examples": [
            {"family": c.kind, "actor": c.actor, "pre_state": c.pre, "post_state": c.post}
            for c, _ in accepted[:5]
        ],
    }
