"""P3 conformance: every window of every target action checked against the spec, batched.

See the package modules for the parts: `cases` (validation, de-duplication, negative windows),
`auxstate` (the auxiliary-state rule), `generator` (the wrapper module), `runner` (chunks,
verdicts, error isolation) and `diagnose` (successors and diffs for failing windows).

Score (docs/BENCHMARK_RULES.md §1): the mean over target actions with at least one window of
[every window of the action passes and the action accepts no fair negative window]
(`specificity`). A window with an error verdict does not pass.
"""

from __future__ import annotations

import secrets
import time

from evaluation.details import (
    BlockingConjunct,
    ConformanceDetails,
    Difference,
    ErrorDetails,
    FailingWindow,
    PerActionRow,
    SettingConjunct,
    StateMapping,
    StateMappingRefusal,
    Successor,
    WindowDetail,
)
from evaluation.inputs import adapter_text
from evaluation.inputs.adapter_check import spec_problems
from evaluation.inputs.contracts import Adapter, Contract
from evaluation.phases.conformance import auxstate, blocking, bounds, diagnose, specificity
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import (
    Case,
    build_cases,
    is_full,
    negative_cases,
    validate_window,
)
from evaluation.phases.conformance.credit import refusal_text
from evaluation.phases.conformance.fair import fair_negative_cases
from evaluation.phases.conformance.runner import (
    TLC_ARGS,
    Budget,
    CaseResult,
    SetupError,
    check_cases,
)
from evaluation.phases.conformance.safety import safety_negative_cases
from evaluation.phases.conformance.vocab import Vocab, schema_vocab
from evaluation.results import ActionOutcome, PhaseOutcome, WindowOutcome, WindowVerdict
from evaluation.tla import assumptions
from evaluation.tla.parsed import ParsedSpec, spec_of
from evaluation.tla.spectext import (
    module_name,
    spec_constants,
    spec_variables,
    substitute,
)
from evaluation.windows.window import SIDES, State, Window


def check_conformance(
    spec: str | ParsedSpec,
    contract: Contract,
    windows: list[Window],
    adapter: Adapter | None = None,
) -> PhaseOutcome:
    start = time.monotonic()
    adapter = adapter or Adapter.identity_for(contract)
    # P3 reads the pinned bounds at their conformance values (they cover the trace corpus).
    contract = contract.for_conformance()
    outcome = _check(spec_of(spec), contract, windows, adapter, start)
    if contract.conformance_constants:
        outcome.details["conformance_constants"] = {
            k: {"value": c.value, "reason": c.reason}
            for k, c in contract.conformance_constants.items()
        }
    outcome.duration_seconds = round(time.monotonic() - start, 3)
    return outcome


def _phase_error(reason: str) -> PhaseOutcome:
    details: ErrorDetails = {"error": reason}
    return PhaseOutcome("conformance", "error", None, details=details)


def _check(
    spec: ParsedSpec,
    contract: Contract,
    windows: list[Window],
    adapter: Adapter,
    start: float,
) -> PhaseOutcome:
    spec_text = spec.text
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
    refused = spec_problems(adapter, spec)
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
    negatives = _negatives(cases, vocab, set(views))
    # Issue 37: real steps moved into other real states where they break a safety invariant.
    keys = {c.key for c in negatives}
    safety = safety_negative_cases(cases, contract, vocab, set(views))
    negatives = [*negatives, *(c for c in safety if c.key not in keys)]
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
        wall_seconds=wall,
        heap_mb=int(contract.budget("conformance", "heap_mb")),
        scratch_mb=int(contract.budget("conformance", "scratch_mb")),
        seed=int(contract.budget("conformance", "seed")),
    )
    try:
        everything = cases + negatives
        aux, aux_text, refusals, decided = auxstate.choose(
            plan, spec, everything, actions, contract, budget
        )
        results = check_cases(plan, spec, everything, actions, aux, budget, decided)
    except SetupError as exc:
        assumed = assumptions.explain(
            exc.messages, spec, dict(contract.constants), dict(adapter.constants)
        )
        if assumed:
            return _phase_error(f"{assumed} (TLC: {exc})")
        return _phase_error(_explain(str(exc), adapter, actions))
    real, neg = results[: len(cases)], results[len(cases) :]
    failing = [i for i, r in enumerate(real) if r.verdict == "fail"]
    closest, pre_diffs = _diagnose(plan, spec, cases, failing, real, actions, aux, budget)
    blocked = _blocking(plan, spec, cases, failing, real, closest, actions, aux, budget)
    window_outcomes = _windows(
        windows,
        reasons,
        cases,
        real,
        closest,
        _undecidable(plan, cases, real, aux),
        pre_diffs,
        blocked,
    )
    limits = bounds.integer_bounds(contract, declared)
    notes = bounds.bound_notes(
        plan, spec, cases, _rerunnable(failing, real), actions, aux, budget, limits
    )
    _note_bounds(window_outcomes, cases, notes)
    _note_setters(plan, spec, window_outcomes)
    action_outcomes, score, per_action = _actions(contract, window_outcomes, negatives, neg)
    passed = sum(1 for w in window_outcomes if w.verdict == "pass")
    details: ConformanceDetails = {
        "rule": "zero tolerance: an action scores 1 only if every one of its windows passes",
        "per_action": per_action,
        "pooled_rate": round(passed / len(window_outcomes), 6),
        "undecided": sum(1 for w in window_outcomes if w.verdict == "undecided"),
        "windows": len(window_outcomes),
        "distinct_cases": len(cases),
        "negative_cases": len(negatives),
        "auxiliary_state": {"rule": aux.kind, "description": aux_text},
        "failing_windows": [_failing(w) for w in window_outcomes if w.verdict != "pass"],
        "tlc_runs": budget.runs,
        "tlc_flags": list(TLC_ARGS),
    }
    mapping = _state_mapping(plan, refusals)
    if mapping is not None:
        details["state_mapping"] = mapping
    return PhaseOutcome("conformance", "ran", score, details, action_outcomes, window_outcomes)


def _rerunnable(failing: list[int], results: list[CaseResult]) -> list[int]:
    """The failing cases whose every failing pre-state is known, so that they can run again
    from them: an explored case keeps only the states it failed from that the exploration
    printed (explore.SHOWN_STATES), and one no reachable state shows has none (undecided)."""
    out = []
    for i in failing:
        result = results[i]
        if result.failed_from is None or 0 < result.failed_from == len(result.failing):
            out.append(i)
    return out


def _failing(window: WindowOutcome) -> FailingWindow:
    row: FailingWindow = {
        "window_id": window.window_id,
        "action": window.action,
        "verdict": window.verdict,
        "reason": window.reason,
        "closest": window.detail.get("closest", []),
    }
    if "hint" in window.detail:
        row["hint"] = window.detail["hint"]
    if "blocking_conjunct" in window.detail:
        row["blocking_conjunct"] = window.detail["blocking_conjunct"]
    if "setting_conjuncts" in window.detail:
        row["setting_conjuncts"] = window.detail["setting_conjuncts"]
    return row


def _negatives(cases: list[Case], vocab: dict[str, Vocab], viewed: set[str]) -> list[Case]:
    """The fair negatives (scored) first, then the diagnostic ones not already among them."""
    fair = fair_negative_cases(cases, vocab, viewed)
    keys = {c.key for c in fair}
    return fair + [c for c in negative_cases(cases, vocab, viewed) if c.key not in keys]


def _state_mapping(plan: gen.Plan, refused: list[StateMappingRefusal]) -> StateMapping | None:
    """The adapter's state mappings: which the spec's behaviour confirmed, which it refused
    (None when the adapter has none)."""
    if not plan.adapter.state:
        return None
    shown: list[StateMappingRefusal] = []
    for refusal in refused:
        row = refusal.copy()
        row["text"] = refusal_text(refusal)
        shown.append(row)
    return {"credited": gen.state_mapped(plan), "refused": shown}


def _spec_pinned(contract: Contract, adapter: Adapter) -> dict[str, str]:
    # `ToSpec` is substituted by the generator like in any adapter expression.
    return {k: adapter_text.spec_value(v, adapter, "ToSpec") for k, v in contract.constants.items()}


def _constrained(contract: Contract, windows: list[Window]) -> list[str]:
    """Schema variables a window may constrain: the observed ones and any a window mentions.
    Unobserved ones (spin's callType) stay out of the projection, so a spec exposing them
    under other names needs no adapter entry for them here."""
    named = {v for w in windows for side in SIDES for v in w.get(side) or {}}
    return [v for v, var in contract.schema.items() if var.observed or v in named]


def _views(contract: Contract, observed: list[str]) -> dict[str, str]:
    """The contract's views of the observed variables, its pinned constants written in."""
    constants = {k: f"({v})" for k, v in contract.constants.items()}
    return {
        v: substitute(contract.schema[v].view, constants)
        for v in observed
        if contract.schema[v].view
    }


def _view_problem(
    window: Window, views: dict[str, str], observed: list[str], vocab: dict[str, Vocab]
) -> str:
    """'' unless a viewed variable is given without all the variables its view reads."""
    for side in SIDES:
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


def _explain(problem: str, adapter: Adapter, actions: list[str]) -> str:
    hints = [a for a in actions if adapter.actions[a].split("(")[0].strip() in problem]
    prefix = f"adapter action(s) {hints} do not resolve in the spec: " if hints else ""
    return prefix + "the conformance wrapper could not be checked: " + problem


def _diagnose(
    plan: gen.Plan,
    spec: ParsedSpec,
    cases: list[Case],
    failing: list[int],
    results: list[CaseResult],
    actions: list[str],
    aux: gen.AuxRule,
    budget: Budget,
) -> tuple[dict[int, list[Successor]], dict[int, list[Difference]]]:
    """Failing case index -> its closest successors, and -> where the mappings of a pre-state
    built entirely from the window disagree with it."""
    if not failing:
        return {}, {}
    # The successors shown are those of the pre-states the action failed from.
    sub = aux.subset(failing, {i: results[i].failing for i in failing})
    viewed: dict[int, State] = {}
    pre: dict[int, list[Difference]] = {}
    chosen = [cases[i] for i in failing]
    found = diagnose.successors(plan, spec, chosen, actions, sub, budget, viewed, pre)
    if found is None:
        return {}, {}
    closest = {
        i: diagnose.closest(found[k], {**cases[i].post, **viewed.get(k, {})})
        for k, i in enumerate(failing)
    }
    return closest, {i: pre[k] for k, i in enumerate(failing) if pre.get(k)}


def _blocking(
    plan: gen.Plan,
    spec: ParsedSpec,
    cases: list[Case],
    failing: list[int],
    results: list[CaseResult],
    closest: dict[int, list[Successor]],
    actions: list[str],
    aux: gen.AuxRule,
    budget: Budget,
) -> dict[int, BlockingConjunct]:
    """Failing case index -> the first false conjunct of its action at the pre-state it failed
    from, for the cases whose action has no successor there at all."""
    blocked = [i for i in failing if not closest.get(i) and results[i].freedom != 0]
    if not blocked:
        return {}
    sub = aux.subset(blocked, {i: results[i].failing for i in blocked})
    found = blocking.blocking_conjuncts(
        plan, spec, [cases[i] for i in blocked], actions, sub, budget
    )
    return {blocked[k]: conjunct for k, conjunct in found.items()}


def _undecidable(
    plan: gen.Plan, cases: list[Case], results: list[CaseResult], aux: gen.AuxRule
) -> dict[int, str]:
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
    windows: list[Window],
    reasons: list[str],
    cases: list[Case],
    results: list[CaseResult],
    closest: dict[int, list[Successor]],
    undecidable: dict[int, str],
    pre_diffs: dict[int, list[Difference]] | None = None,
    blocked: dict[int, BlockingConjunct] | None = None,
) -> list[WindowOutcome]:
    by_window: dict[int, int] = {}
    for ci, case in enumerate(cases):
        for wi in case.windows:
            by_window[wi] = ci
    out = []
    for wi, window in enumerate(windows):
        detail: WindowDetail = {}
        verdict: WindowVerdict
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
                conjunct = (blocked or {}).get(ci)
                if conjunct is not None:
                    detail["blocking_conjunct"] = conjunct
                    reason += f": `{conjunct['text']}` (line {conjunct['line']}) is false there"
                shown = (pre_diffs or {}).get(ci)
                if r.freedom == 0 and shown:
                    detail["pre_differences"] = shown
                    reason += "; the mappings show " + _diff_text(shown)
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


def _note_bounds(
    window_outcomes: list[WindowOutcome], cases: list[Case], notes: dict[int, str]
) -> None:
    for ci, note in notes.items():
        for wi in cases[ci].windows:
            outcome = window_outcomes[wi]
            if outcome.verdict == "fail":
                outcome.reason = f"{outcome.reason}; {note}"
                outcome.detail["bound"] = note


def _note_setters(plan: gen.Plan, spec: ParsedSpec, window_outcomes: list[WindowOutcome]) -> None:
    """Where each failing window's action sets the variables its closest successor differs in."""
    memo: dict[tuple[str, tuple[str, ...]], list[SettingConjunct]] = {}
    for outcome in window_outcomes:
        closest = outcome.detail.get("closest") if outcome.verdict == "fail" else None
        if not closest or outcome.action not in plan.adapter.actions:
            continue
        differing = tuple(dict.fromkeys(d["variable"] for d in closest[0]["differences"]))
        key = (outcome.action, differing)
        if key not in memo:
            memo[key] = blocking.setters(plan, spec, outcome.action, list(differing))
        found = memo[key]
        if found:
            outcome.detail["setting_conjuncts"] = found
            where = "; ".join(f"{f['variable']} on line {f['line']} (`{f['text']}`)" for f in found)
            outcome.reason += f"; the action sets {where}"


def _fail_reason(result: CaseResult, closest: list[Successor], has_pre: bool = True) -> str:
    if result.freedom == 0:
        return (
            "no pre-state of the spec matches the window's pre-state (every spec variable was "
            "built from the window, but the adapter's variable mappings of that state do not "
            "show the window's values: the spec cannot represent them)"
            if has_pre
            else "no pre-state of the spec matches the window's pre-state"
        )
    some = ""
    if result.freedom is not None and result.freedom > 1:
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


def _diff_text(diff: list[Difference]) -> str:
    return "; ".join(
        f"{d['variable']}"
        + (f"[{d['key']}]" if "key" in d else "")
        + f": spec {d['spec']!r}, trace {d['trace']!r}"
        for d in diff[:4]
    )


def _actions(
    contract: Contract,
    window_outcomes: list[WindowOutcome],
    negatives: list[Case],
    neg_results: list[CaseResult],
) -> tuple[list[ActionOutcome], float | None, dict[str, PerActionRow]]:
    per_action: dict[str, PerActionRow] = {}
    outcomes, finals = [], []
    for action in contract.actions:
        mine = [w for w in window_outcomes if w.action == action]
        passed = sum(1 for w in mine if w.verdict == "pass")
        spec = specificity.of_action(action, negatives, neg_results)
        row: PerActionRow = {
            "passed": passed,
            "total": len(mine),
            # Undecided windows count as not passed (a spec cannot gain by making windows
            # undecidable) but are shown apart from failures: they ask for a state mapping.
            "failed": sum(1 for w in mine if w.verdict == "fail"),
            "undecided": sum(1 for w in mine if w.verdict == "undecided"),
            "errors": sum(1 for w in mine if w.verdict == "error"),
            "specificity": spec,
            "zero_tolerance": None,
            "pass_rate": None,
        }
        if mine:
            refused = specificity.refusal(action, spec)
            final = 1 if passed == len(mine) and not refused else 0
            finals.append(final)
            row["zero_tolerance"], row["pass_rate"] = final, round(passed / len(mine), 6)
            if refused:
                row["specificity_failure"] = refused
        else:
            row["note"] = "no windows: not scored"
        per_action[action] = row
        outcomes.append(ActionOutcome(action, passed, len(mine), row.copy()))
    score = round(sum(finals) / len(finals), 6) if finals else None
    return outcomes, score, per_action
