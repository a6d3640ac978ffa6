"""One breadth-first TLC run from the spec's Init that finds its credited pre-states and, on the
way, checks the windows that need them (auxstate.py, rule 2).

The run explores the spec's own behaviour (`plan.init`, `plan.next`) within `depth` steps and
`cap` distinct states (both stop TLC's search: P2's bound, read in the action). At each state it
reaches it evaluates which of the `checks` cases' pre-states the projection shows, and for each
such case whether the case's action can take this very state to the case's post-state
(`ENABLED`, so no successor is stored). It prints `<<"<nonce>e", shown, passed>>` (case numbers),
and the state itself where some case failed from it (for the diagnosis) or where candidates are
grouped (`event_decides` classes). A case with no such line is one no reachable state shows.

What a state mapping needs is printed in the same run (credit.py): `<<"<nonce>x", ...>>` where a
checked mapping does not read back, `<<"<nonce>l", values>>` with the state-mapped variables'
values. Output cut short by the sandbox proves nothing: the cases it was to decide get an error
verdict, never a pass (a spec could flood its output to hide the states it fails from).
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from evaluation.phases.conformance import credit, runner
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import Case
from evaluation.phases.conformance.diagnose import read_tagged
from evaluation.phases.conformance.runner import (
    READ_OUTPUT_BYTES,
    Budget,
    CaseResult,
    SetupError,
    _setup_problem,
    error_text,
    is_negative,
    run_module,
)
from evaluation.phases.conformance.tlatext import tla_text
from evaluation.tla.parsed import ParsedSpec
from evaluation.tla.sandbox.limits import ToolRun
from evaluation.tla.tlcvalue import TlcValue, to_json_like
from evaluation.windows.window import State

_DISTINCT = re.compile(r"(\d+) distinct states found")
SHOWN_STATES = 200  # failing states printed for the diagnosis, among the first found
CUT = (
    "TLC's output was too large to read which states of the spec show this window (P3 reads "
    f"a run's first {READ_OUTPUT_BYTES // 1_000_000} MB of output, in at most "
    f"{runner.MAX_RUNS} runs): not decided"
)


@dataclass
class Exploration:
    """What the run decided and saw."""

    results: dict[int, CaseResult] = field(default_factory=dict)  # index into `checks`
    failing: dict[int, list[str]] = field(default_factory=dict)  # -> states failed from (TLA+)
    reached: int = 0  # distinct states TLC found
    # state-mapped variable -> (projection, spec value, mapped value) where it does not read back
    mismatches: dict[str, tuple[State, TlcValue, TlcValue]] = field(default_factory=dict)
    leaves: dict[str, set[credit.Leaf]] = field(default_factory=dict)  # -> leaf values seen
    cut: bool = False  # TLC's output was cut short


def explore(
    plan: gen.Plan,
    spec: ParsedSpec,
    bounds: tuple[int, int],
    budget: Budget,
    checks: list[Case],
    actions: list[str],
    classes: list[str] | None = None,
    checked: list[str] | None = None,
    valued: list[str] | None = None,
) -> Exploration:
    """`bounds` = (depth, cap); `classes`: the event-decided variables (candidates that differ
    only in them form one class, and a case passes when each class has a state it passes
    from); `checked`: the state mappings whose reading back is tested; `valued`: the spec
    variables whose values are printed."""
    checked, valued, classes = checked or [], valued or [], classes or []
    module = exploration_module(plan, bounds, checks, actions, checked, valued, bool(classes))
    run = run_module(plan, spec, module, budget)
    if run.status == "ok" and run.truncated and (len(checks) > 1 or checks and valued):
        if not _can_split(budget):
            return _read(plan, run, checks, checked, valued, classes)
        # Too much to read at once: fewer windows print less (each half explores again).
        return _halves(plan, spec, bounds, budget, checks, actions, classes, valued)
    if run.status == "ok":
        return _read(plan, run, checks, checked, valued, classes)
    setup = _setup_problem(run)
    if setup:
        raise SetupError(setup.replace(plan.nonce, ""), run.messages)
    problem = credit.evaluation_problem(plan, module, run, checked)
    if problem:
        raise problem
    if not checks and not checked:
        raise SpecError(error_text(run, plan.nonce))
    # Some case's action (or a mapping) cannot be evaluated on some reachable state: find which
    # by halves, as the check runs do (each half explores again).
    try:
        plain = explore(plan, spec, bounds, budget, [], actions)
    except SpecError as exc:
        # The spec's own behaviour fails on a state it reaches: no state of it can be credited.
        reason = f"the spec's next-state relation fails on a state it reaches from Init: {exc}"
        if checked:
            raise credit.MappingError(list(checked), reason) from exc
        return Exploration({i: CaseResult("error", reason) for i in range(len(checks))})
    if checked:
        raise credit.MappingError(list(checked), run.note or "TLC stopped with an error")
    return _bisect(plan, spec, bounds, budget, checks, actions, classes, valued, run, plain)


class SpecError(Exception):
    """The spec's own behaviour cannot be evaluated on a state it reaches (TLC's message)."""


def _can_split(budget: Budget) -> bool:
    return budget.runs < runner.MAX_RUNS


def _bisect(
    plan: gen.Plan,
    spec: ParsedSpec,
    bounds: tuple[int, int],
    budget: Budget,
    checks: list[Case],
    actions: list[str],
    classes: list[str],
    valued: list[str],
    run: ToolRun,
    plain: Exploration,
) -> Exploration:
    if len(checks) == 1 or not _can_split(budget):
        reason = error_text(run, plan.nonce)
        out = Exploration(reached=plain.reached)
        out.results = {i: CaseResult("error", reason) for i in range(len(checks))}
        return out
    return _halves(plan, spec, bounds, budget, checks, actions, classes, valued)


def _halves(
    plan: gen.Plan,
    spec: ParsedSpec,
    bounds: tuple[int, int],
    budget: Budget,
    checks: list[Case],
    actions: list[str],
    classes: list[str],
    valued: list[str],
) -> Exploration:
    out = Exploration()
    if valued:
        # The values for credit.py in a run of their own: they print on every state.
        seen = explore(plan, spec, bounds, budget, [], actions, valued=valued)
        out.leaves, out.cut, out.reached, valued = seen.leaves, seen.cut, seen.reached, []
    mid = len(checks) // 2
    parts = [(0, checks)] if len(checks) == 1 else [(0, checks[:mid]), (mid, checks[mid:])]
    for offset, part in parts:
        got = explore(plan, spec, bounds, budget, part, actions, classes, None, valued)
        out.results.update({offset + i: r for i, r in got.results.items()})
        out.failing.update({offset + i: s for i, s in got.failing.items()})
        out.leaves = out.leaves or got.leaves
        out.cut = out.cut or got.cut
        out.reached = max(out.reached, got.reached)
        valued = []
    return out


def _read(
    plan: gen.Plan,
    run: ToolRun,
    checks: list[Case],
    checked: list[str],
    valued: list[str],
    classes: list[str],
) -> Exploration:
    found = _DISTINCT.findall(run.output)
    out = Exploration(reached=int(found[-1]) if found else 0, cut=run.truncated)
    for item in read_tagged(run.output, plan.nonce, "x"):
        var = checked[item[1] - 1]
        if var not in out.mismatches:
            proj = dict(zip(plan.observed, to_json_like(item[2]), strict=True))
            out.mismatches[var] = (proj, item[3], item[4])
    out.leaves = {v: set() for v in valued}
    for item in read_tagged(run.output, plan.nonce, "l"):
        for var, value in zip(valued, item[1], strict=True):
            out.leaves[var] |= credit.leaves(value)
    if run.truncated:
        out.results = {i: CaseResult("error", CUT) for i in range(len(checks))}
        return out
    keep = [i for i, v in enumerate(plan.spec_variables) if v not in classes]
    # case -> class key -> [(passed from this state, its TLA+ text or "")]
    seen: dict[int, dict[Hashable, list[tuple[bool, str]]]] = {i: {} for i in range(len(checks))}
    for item in read_tagged(run.output, plan.nonce, "e"):
        shown, passed = item[1].items, item[2].items
        values = item[3] if len(item) > 3 else None
        key = tuple(values[i] for i in keep) if classes and values is not None else None
        text = _tuple_text(values) if values is not None else ""
        for k in shown:
            group = seen[k - 1].setdefault(key if classes else len(seen[k - 1]), [])
            group.append((k in passed, text))
    for i, groups in seen.items():
        states = [s for g in groups.values() for s in g]
        bad = [g for g in groups.values() if not any(ok for ok, _ in g)]
        failing = [text for g in bad for ok, text in g if not ok]
        ok = bool(states) and not bad
        if is_negative(checks[i]):
            # Accepted from some credited pre-state (runner.negative_verdict says why).
            ok = any(passed for passed, _ in states)
        out.results[i] = CaseResult("pass" if ok else "fail", "", len(states))
        out.results[i].failed_from = len(failing)
        failing = [text for text in failing if text]
        if failing:
            out.failing[i] = list(dict.fromkeys(failing))
    return out


def exploration_module(
    plan: gen.Plan,
    bounds: tuple[int, int],
    checks: list[Case],
    actions: list[str],
    checked: list[str],
    valued: list[str],
    always_show: bool,
) -> str:
    depth, cap = bounds
    names = ", ".join(plan.spec_variables)
    off, guide = gen.n(plan, "off"), gen.n(plan, "Guide")
    lines = [
        f"---- MODULE {gen.module_name(plan)} ----",
        # Naturals for the bounds' `<`, as in P2's wrapper (a spec P2 runs runs here).
        f"EXTENDS {plan.spec_module}, TLC, Naturals",
        *([f"VARIABLE {off}"] if plan.guide else []),
        *gen.prelude(plan),
        *gen._projection(plan),
        *gen.guide_definition(plan),
        *credit.mapping_definitions(plan, checked),
    ]
    prints = []
    if checks:
        lines += _check_definitions(plan, checks, actions)
        shown, passed = gen.n(plan, "shown"), gen.n(plan, "passed")
        state = f"<<{names}>>"
        # The state is printed for the diagnosis where a window failed from it, among the first
        # states found only (a few suffice; more would only fill the output), and always where
        # candidates are grouped by it.
        short, full = (
            f'<<"{plan.nonce}e", {shown}, {passed}>>',
            f'<<"{plan.nonce}e", {shown}, {passed}, {state}>>',
        )
        line = (
            full
            if always_show
            else f'IF {passed} = {shown} \\/ TLCGet("distinct") >= {SHOWN_STATES} THEN {short} '
            f"ELSE {full}"
        )
        prints.append(
            f"  /\\ LET {shown} == {gen.n(plan, 'Shown')} IN IF {shown} = {{}} THEN TRUE ELSE "
            f"LET {passed} == {{{gen.n(plan, 'k')} \\in {shown} : {gen.n(plan, 'Ok')}"
            f"({gen.n(plan, 'k')})}} IN PrintT({line})"
        )
    prints += [f"  /\\ {credit.check_operator(plan, v)}" for v in checked]
    if valued:
        prints.append(f'  /\\ PrintT(<<"{plan.nonce}l", <<{", ".join(valued)}>>>>)')
    init, guided = plan.init, []
    if plan.guide:
        # A guided exploration counts, in a variable of its own, the steps since its path last
        # showed only corpus values, and does not expand a state past `guide_slack` of them
        # (the checks above still run on it: it is a state of the spec all the same).
        init = f"{plan.init} /\\ {off} = IF {guide} THEN 0 ELSE 1"
        guided = [
            f"  /\\ {off} < {plan.guide_slack + 1}",
            f"  /\\ {off}' = IF {guide}' THEN 0 ELSE {off} + 1",
        ]
    lines += [
        f"{gen.n(plan, 'Init')} == {init}",
        f"{gen.n(plan, 'Next')} ==",
        *(prints or ["  /\\ TRUE"]),
        f'  /\\ TLCGet("level") < {depth + 1} /\\ TLCGet("distinct") < {cap}',
        f"  /\\ {plan.next}",
        *guided,
        "====",
    ]
    return "\n".join(lines) + "\n"


def _check_definitions(plan: gen.Plan, checks: list[Case], actions: list[str]) -> list[str]:
    """The cases' tables, the distinct pre-states (`WP`, which the current state's projection
    shows is `Shown`'s business) and `Ok(k)`: case k's action reaches its post-state from here."""
    k, i, cs, j = gen.n(plan, "k"), gen.n(plan, "i"), gen.n(plan, "cs"), gen.n(plan, "p")
    # Each check's pre-state text once: comparing every check with every distinct pre-state
    # re-encoded them all per pre-state (quadratic: 19 s of the rwmutex reproduction's P3).
    cases_of: dict[str, list[str]] = {}
    for number, check in enumerate(checks, 1):
        cases_of.setdefault(gen._constraints(plan, check.pre, set()), []).append(str(number))
    pres = list(cases_of)
    by_pre = ["{" + ", ".join(numbers) + "}" for numbers in cases_of.values()]
    bound = {"actor": f"{gen.n(plan, 'Actor')}[{k}]", "msg": f"{gen.n(plan, 'Msg')}[{k}]"}
    steps = [
        f"{gen.n(plan, 'DoE')}{a}({k}) == "
        f"{gen.adapter_expr(plan, plan.adapter.actions[action], bound)}"
        for a, action in enumerate(actions, start=1)
    ]
    arms = " [] ".join(
        f"{gen.n(plan, 'A')}[{k}] = {a} -> {gen.n(plan, 'DoE')}{a}({k})"
        for a in range(1, len(actions) + 1)
    )
    sat = gen.n(plan, "Sat")
    post = f"LET {cs} == {gen.n(plan, 'Q')}[{k}] IN \\A {i} \\in DOMAIN {cs} : "
    post += f"{sat}(({gen.n(plan, 'W')}({cs}[{i}][1]))', {cs}[{i}])"
    pre = f"LET {cs} == {gen.n(plan, 'WP')}[{k}] IN \\A {i} \\in DOMAIN {cs} : "
    pre += f"{sat}({gen.n(plan, 'W')}({cs}[{i}][1]), {cs}[{i}])"
    return [
        *gen._tables(plan, checks, actions),
        f"{gen.n(plan, 'WP')} == {gen._tuple(pres)}",
        f"{gen.n(plan, 'WC')} == {gen._tuple(by_pre)}",
        f"{gen.n(plan, 'Shown')} == UNION {{{gen.n(plan, 'WC')}[{j}] : "
        f"{j} \\in {{{k} \\in DOMAIN {gen.n(plan, 'WP')} : {pre}}}}}",
        *steps,
        f"{gen.n(plan, 'Ok')}({k}) == ENABLED ((CASE {arms}) /\\ ({post}))",
    ]


def _tuple_text(values: tuple[Any, ...]) -> str:
    return "<<" + ", ".join(tla_text(v) for v in values) + ">>"
