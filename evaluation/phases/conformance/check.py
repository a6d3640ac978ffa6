"""P3 conformance: every trace followed from the spec's Init, each window decided by whether the
spec can take its event after explaining the trace's earlier events
(docs/decisions/0006-p3-follows-traces.md).

The package's parts: `traces` (windows -> ordered traces and their gaps), `followmodule` (the
wrapper module), `follow` (runs, resynchronisation, verdicts), `cases` and `fair` (validation,
negative windows), `diagnose` and `blocking` (why an event failed, from the states at its
position), `timeline` (how far each trace was followed).

Score (docs/BENCHMARK_RULES.md §1): the mean over target actions with at least one window of
[every window of the action passes and the action accepts no fair negative window]
(`specificity`). A window with an error or undecided verdict does not pass.
"""

from __future__ import annotations

import json
import secrets
import time

from evaluation.details import (
    BlockingConjunct,
    ConformanceDetails,
    Difference,
    ErrorDetails,
    FailingWindow,
    FollowBounds,
    PerActionRow,
    SettingConjunct,
    Successor,
    WholeExploration,
    WindowDetail,
)
from evaluation.inputs import adapter_text
from evaluation.inputs.adapter_check import spec_problems
from evaluation.inputs.contracts import Adapter, Contract
from evaluation.phases.conformance import blocking, diagnose, specificity, whole_behaviour
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import (
    Case,
    build_cases,
    case_key,
    is_full,
    negative_cases,
    validate_window,
)
from evaluation.phases.conformance.fair import fair_negative_cases
from evaluation.phases.conformance.follow import Followed, follow
from evaluation.phases.conformance.followmodule import Bounds
from evaluation.phases.conformance.runner import (
    TLC_ARGS,
    Budget,
    CaseResult,
    Checker,
    SetupError,
)
from evaluation.phases.conformance.safety import safety_negative_cases
from evaluation.phases.conformance.timeline import trace_rows
from evaluation.phases.conformance.traces import traces_of
from evaluation.phases.conformance.vocab import Vocab, schema_vocab
from evaluation.results import (
    ActionOutcome,
    Credit,
    PhaseOutcome,
    WindowOutcome,
    WindowVerdict,
    credit_of,
)
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
    refused = _refusal(spec, contract, windows, adapter)
    if refused:
        return _phase_error(refused)
    vocab = schema_vocab(contract)
    observed = _constrained(contract, windows)
    views = _views(contract, observed)
    reasons = [
        validate_window(w, contract, vocab) or _view_problem(w, views, observed, vocab)
        for w in windows
    ]
    valid = [not r for r in reasons]
    cases = build_cases(windows, valid)
    negatives, attached = _checked_negatives(windows, cases, contract, vocab, set(views))
    traces = traces_of(windows, valid)
    actions = [a for a in contract.actions if a in _actions_with_windows(windows, valid)]
    plan = _plan(spec, contract, adapter, observed, vocab, views)
    checker = Checker(plan, spec, actions, _budget(contract, start))
    bounds = follow_bounds(contract)
    try:
        order, followed = follow(checker, traces, windows, attached, bounds, contract.folded_steps)
    except SetupError as exc:
        return _phase_error(_setup_problem(exc, spec, contract, adapter, actions))
    explored = whole_behaviour.settle(
        checker, windows, order, followed, bounds.states, contract.folded_steps
    )
    neg = _negative_results(negatives, attached, followed)
    number = {w: e for e, w in enumerate(order, 1)}
    failing = [w for w in order if followed.events[number[w]].verdict == "fail"]
    closest, blocked = _diagnosis(checker, windows, failing, number, followed)
    window_outcomes = _windows(windows, reasons, number, followed, closest, blocked)
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
        "auxiliary_state": {"rule": "followed", "description": FOLLOWED},
        "failing_windows": [_failing(w) for w in window_outcomes if w.verdict != "pass"],
        "traces": trace_rows(traces, windows, window_outcomes, number, followed, blocked),
        "follow_bounds": _bounds_details(bounds, followed, checker.budget),
        "tlc_runs": checker.budget.runs,
        "tlc_flags": list(TLC_ARGS),
    }
    if explored is not None:
        details["whole_exploration"] = _exploration_details(explored, window_outcomes)
    if adapter.state:
        details["state_mapping"] = {
            "credited": [],
            "refused": [],
            "ignored": sorted(adapter.state),
            "note": STATE_IGNORED,
        }
    return PhaseOutcome("conformance", "ran", score, details, action_outcomes, window_outcomes)


def _exploration_details(
    explored: whole_behaviour.Exploration, window_outcomes: list[WindowOutcome]
) -> WholeExploration:
    return {
        "exhaustive": explored.exhaustive,
        "distinct_states": explored.distinct,
        "unreachable_windows": sum(1 for w in window_outcomes if w.detail.get("unreachable_in")),
    }


def _checked_negatives(
    windows: list[Window],
    cases: list[Case],
    contract: Contract,
    vocab: dict[str, Vocab],
    viewed: set[str],
) -> tuple[list[Case], list[tuple[int, Case]]]:
    """The negatives checked, and each attached to the windows (by index) where it is checked:
    the fair ones and the safety ones (real steps moved into other real states where they break
    a safety invariant), only those with a position in some trace."""
    negatives = _negatives(cases, vocab, viewed)
    keys = {c.key for c in negatives}
    safety = safety_negative_cases(cases, contract, vocab, viewed)
    negatives = [*negatives, *(c for c in safety if c.key not in keys)]
    attached = _attached(windows, cases, negatives)
    return list({id(c): c for _, c in attached}.values()), attached


def _actions_with_windows(windows: list[Window], valid: list[bool]) -> set[str]:
    return {str(w.get("action")) for w, ok in zip(windows, valid, strict=True) if ok}


def _refusal(spec: ParsedSpec, contract: Contract, windows: list[Window], adapter: Adapter) -> str:
    """Why P3 cannot be scored with these windows and this adapter ("" when it can)."""
    if not windows:
        # A task with traces is never n/a here: that would hand P3's weight to the other phases
        # (the pipeline records n/a only for tasks without trace data).
        return (
            f"the task {contract.slug!r} names traces but no trace window was given: its corpus "
            "is empty or was not imported; conformance cannot be scored"
        )
    missing = [a for a in contract.actions if a not in adapter.actions]
    if missing:
        return f"the adapter has no expression for target action(s) {missing}"
    refused = spec_problems(adapter, spec)
    if refused:
        return "the adapter is refused: " + "; ".join(refused)
    return ""


def _plan(
    spec: ParsedSpec,
    contract: Contract,
    adapter: Adapter,
    observed: list[str],
    vocab: dict[str, Vocab],
    views: dict[str, str],
) -> gen.Plan:
    spec_text = spec.text
    declared = set(spec_constants(spec_text))
    init, nxt = adapter_text.behaviour(adapter, spec_text)
    return gen.Plan(
        spec_module=module_name(spec_text) or contract.module,
        init=init,
        next=nxt,
        nonce=secrets.token_hex(6),
        adapter=adapter,
        observed=observed,
        vocab=vocab,
        views=views,
        spec_variables=spec_variables(spec_text),
        constants={
            k: v
            for k, v in {**_spec_pinned(contract, adapter), **adapter.constants}.items()
            if k in declared
        },
        # No state is ever built from a window or a state mapping: every state P3 checks from
        # is one the spec reaches by following the trace.
        refused_state=set(adapter.state),
        from_windows=False,
    )


def _budget(contract: Contract, start: float) -> Budget:
    wall = float(contract.budget("conformance", "wall_seconds"))
    return Budget(
        deadline=start + wall,
        wall_seconds=wall,
        heap_mb=int(contract.budget("conformance", "heap_mb")),
        scratch_mb=int(contract.budget("conformance", "scratch_mb")),
        seed=int(contract.budget("conformance", "seed")),
        work_cpu_seconds=float(contract.budget("conformance", "work_cpu_seconds")),
    )


def _setup_problem(
    exc: SetupError, spec: ParsedSpec, contract: Contract, adapter: Adapter, actions: list[str]
) -> str:
    assumed = assumptions.explain(
        exc.messages, spec, dict(contract.constants), dict(adapter.constants)
    )
    if assumed:
        return f"{assumed} (TLC: {exc})"
    return _explain(str(exc), adapter, actions)


def _bounds_details(bounds: Bounds, followed: Followed, budget: Budget) -> FollowBounds:
    return {
        "quiet_gap_steps": bounds.quiet,
        "free_gap_steps": bounds.free,
        "max_gap_steps": bounds.most,
        "resync_steps": bounds.resync,
        "max_states_per_run": bounds.states,
        "largest_run_states": followed.distinct,
        "work_cpu_seconds": budget.work_cpu_seconds,
        "work_bound_reached": followed.work_bound_reached,
    }


FOLLOWED = (
    "every trace is followed from the spec's Init: the states checked at an event are the "
    "states the spec reaches by explaining the trace's earlier events; no state is built from "
    "a window, TypeOK or a state mapping"
)
STATE_IGNORED = (
    "state mappings are not used: the trace's own history decides the spec's hidden variables"
)


def follow_bounds(contract: Contract) -> Bounds:
    return Bounds(
        quiet=int(contract.budget("conformance", "gap_steps")),
        free=int(contract.budget("conformance", "free_gap_steps")),
        most=int(contract.budget("conformance", "max_gap_steps")),
        resync=int(contract.budget("conformance", "resync_steps")),
        states=int(contract.budget("conformance", "max_states")),
    )


def _attached(
    windows: list[Window], cases: list[Case], negatives: list[Case]
) -> list[tuple[int, Case]]:
    """(window index, negative): each negative at the windows whose pre-state is its own, so it
    is checked from the states the spec reaches at their positions: a negative varying a real
    case (fair, neg-post) at every window of that case; a neg-step one (another action or
    actor from a state the corpus shows) at the first ATTACH_STEP windows showing its
    pre-state, whatever their action."""
    by_case: dict[str, list[int]] = {}
    for case in cases:
        key = case_key(case.action, case.actor, case.input, case.pre, {})
        by_case.setdefault(key, []).extend(case.windows)
    by_pre: dict[str, list[int]] = {}
    for case in cases:
        by_pre.setdefault(_canon(case.pre), []).extend(case.windows)
    out: list[tuple[int, Case]] = []
    for neg in negatives:
        key = case_key(neg.action, neg.actor, neg.input, neg.pre, {})
        if key in by_case:
            out.extend((w, neg) for w in by_case[key])
        else:
            out.extend((w, neg) for w in sorted(by_pre.get(_canon(neg.pre), []))[:ATTACH_STEP])
    return out


ATTACH_STEP = 8


def _canon(state: State) -> str:
    return json.dumps(state, sort_keys=True)


def _negative_results(
    negatives: list[Case], attached: list[tuple[int, Case]], followed: Followed
) -> list[CaseResult]:
    """Accepted ("pass") iff some state at one of its positions took it; rejected ("fail")
    when some of its positions were reached in runs read whole; otherwise not evaluated."""
    accepted: set[int] = set()
    reached: set[int] = set()
    cut: set[int] = set()
    index = {id(c): i for i, c in enumerate(negatives)}
    for k, (_w, neg) in enumerate(attached, 1):
        i = index[id(neg)]
        if k in followed.accepted:
            accepted.add(i)
        if k in followed.reached_negatives:
            reached.add(i)
        if k in followed.cut_negatives:
            cut.add(i)
    out = []
    for i in range(len(negatives)):
        if i in accepted:
            out.append(CaseResult("pass"))
        elif i in cut:
            out.append(CaseResult("error", "TLC's output was too large to read"))
        elif i in reached:
            out.append(CaseResult("fail"))
        else:
            out.append(CaseResult("undecided", "no state reached its position"))
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


def _diagnosis(
    checker: Checker,
    windows: list[Window],
    failing: list[int],
    number: dict[int, int],
    followed: Followed,
) -> tuple[dict[int, list[Successor]], dict[int, BlockingConjunct]]:
    """Failing window index -> the closest successors its action has from the states at its
    position that show its pre-state, and, where it has none, the first false conjunct of the
    action there (the states are the ones the following run printed: the spec's own)."""
    shown = [w for w in failing if followed.frontier.get(number[w])]
    if not shown:
        return {}, {}
    candidates: list[str] = []
    per_case: list[list[int]] = []
    for w in shown:
        states = followed.frontier[number[w]]
        per_case.append(list(range(len(candidates) + 1, len(candidates) + len(states) + 1)))
        candidates.extend(states)
    aux = gen.AuxRule("explored", list(checker.plan.spec_variables), candidates, per_case)
    chosen = [_case_of(windows[w]) for w in shown]
    viewed: dict[int, State] = {}
    found = diagnose.successors(checker, chosen, aux, viewed)
    closest: dict[int, list[Successor]] = {}
    if found is not None:
        for k, w in enumerate(shown):
            closest[w] = diagnose.closest(found[k], {**chosen[k].post, **viewed.get(k, {})})
    stuck = [k for k, w in enumerate(shown) if not closest.get(w)]
    if not stuck:
        return closest, {}
    sub = gen.AuxRule("explored", aux.variables, candidates, [per_case[k] for k in stuck])
    conj = blocking.blocking_conjuncts(checker, [chosen[k] for k in stuck], sub)
    return closest, {shown[stuck[k]]: c for k, c in conj.items()}


def _case_of(window: Window) -> Case:
    return Case(
        "",
        window["action"],
        window["actor"],
        window.get("input"),
        window["pre_state"],
        window["post_state"],
    )


def _windows(
    windows: list[Window],
    reasons: list[str],
    number: dict[int, int],
    followed: Followed,
    closest: dict[int, list[Successor]],
    blocked: dict[int, BlockingConjunct],
) -> list[WindowOutcome]:
    out = []
    for wi, window in enumerate(windows):
        detail: WindowDetail = {}
        verdict: WindowVerdict
        if reasons[wi]:
            verdict, reason = "error", f"window value check: {reasons[wi]}"
        else:
            result = followed.events[number[wi]]
            verdict, reason = result.verdict, result.reason
            states = len(followed.frontier.get(number[wi], []))
            if verdict == "fail" and result.unreachable_in:
                detail["unreachable_in"] = result.unreachable_in
                detail["hint"] = result.hint
            elif verdict == "fail":
                detail["closest"] = closest.get(wi, [])
                detail["frontier_states"] = states
                reason = _fail_reason(states, detail["closest"])
                conjunct = blocked.get(wi)
                if conjunct is not None:
                    detail["blocking_conjunct"] = conjunct
                    reason += f": `{conjunct['text']}` (line {conjunct['line']}) is false there"
            elif verdict == "undecided":
                detail["hint"] = result.hint or reason
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
                credit=credit_of(verdict),
            )
        )
    return out


def _fail_reason(states: int, closest: list[Successor]) -> str:
    if not states:
        return (
            "the spec follows the trace to this event, but no state it reaches there (by the "
            "trace's earlier events and the steps allowed between them) shows the event's "
            "pre-state"
        )
    some = f"from the {states} state(s) the spec reaches at this event that show its pre-state: "
    if not closest:
        return some + "the action is not enabled"
    return (
        some
        + "post-state not reachable in one step; closest successor differs in "
        + _diff_text(closest[0]["differences"])
    )


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
        credit: Credit | None = None  # an action without windows is not scored
        if mine:
            refused = specificity.refusal(action, spec)
            final = 1 if passed == len(mine) and not refused else 0
            finals.append(final)
            row["zero_tolerance"], row["pass_rate"] = final, round(passed / len(mine), 6)
            credit = "credited" if final else "failed" if passed < len(mine) else "unspecific"
            if refused:
                row["specificity_failure"] = refused
                _unspecific(mine)
        else:
            row["note"] = "no windows: not scored"
        per_action[action] = row
        outcomes.append(ActionOutcome(action, passed, len(mine), row.copy(), credit))
    score = round(sum(finals) / len(finals), 6) if finals else None
    return outcomes, score, per_action


def _unspecific(windows: list[WindowOutcome]) -> None:
    """An action that accepts a fair negative window earns nothing for the windows it passes."""
    for window in windows:
        if window.verdict == "pass":
            window.credit = "unspecific"
