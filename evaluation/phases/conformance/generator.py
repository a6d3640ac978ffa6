"""The wrapper module that checks many cases in one TLC run.

The wrapper EXTENDS the spec (rather than INSTANCE-ing it) so adapter expressions, written over
the spec's own names, and the spec's TypeOK can be used as they are, and the spec's variables are
the wrapper's variables without being re-declared. Every name the wrapper adds starts with `_`
and ends with a per-run random nonce, so no spec can define or refer to it. Only TLC is extended
besides the spec (for `:>`/`@@` and PrintT); the window index ranges over `DOMAIN` of a tuple,
so Naturals is not needed.

Init picks the case `_w` and builds its pre-state: identity-mapped schema variables the window
gives in full are assigned; every other spec variable takes the values the auxiliary-state rule
allows (TypeOK or the explored candidates); partial values constrain only the given keys.
Next takes one step of the case's action with the actor (and message) bound, then checks the
post-state constraints; a successor that satisfies them prints `<<"<nonce>v", k>>` as the very
last conjunct. With `-deadlock`, TLC explores every case and reports each pass; the spec can
neither see `_w` nor know the nonce, so it cannot forge a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from evaluation.inputs import adapter_text
from evaluation.inputs.adapter_check import VALUE_HELPERS
from evaluation.inputs.contracts import Adapter
from evaluation.phases.conformance.cases import Case, is_full
from evaluation.phases.conformance.vocab import Vocab
from evaluation.tla.spectext import substitute
from evaluation.tla.values import to_tla
from evaluation.windows.window import State

AuxKind = Literal["pinned", "typeok", "explored"]


@dataclass
class AuxRule:
    """How spec variables the window does not pin get their pre-state values.

    kind "typeok": conjoin the spec's TypeOK (TLC enumerates its `x \\in S` conjuncts).
    kind "explored": `candidates[i]` is the tuple text of one explored state over `variables`,
    and `per_case[k]` the candidate indexes for case k (already filtered by its pre-state).
    kind "pinned": every spec variable is pinned by every case.
    """

    kind: AuxKind
    variables: list[str] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)
    per_case: list[list[int]] = field(default_factory=list)
    fallback: list[int] = field(default_factory=list)  # cases no explored state agreed with


@dataclass
class Plan:
    spec_module: str
    nonce: str
    adapter: Adapter
    observed: list[str]  # schema variables windows may constrain, in projection order
    vocab: dict[str, Vocab]
    spec_variables: list[str]
    constants: dict[str, str]  # constant -> TLA+ value, only those the spec declares
    count: bool = True  # print one tag per candidate pre-state of real cases
    init: str = "Init"  # the spec's behaviour, by the adapter's (or cfg's) names
    next: str = "Next"
    # schema variable -> the contract's view of it (contract constants already substituted):
    # windows and the spec's projection are compared through it (schema `view`)
    views: dict[str, str] = field(default_factory=dict)

    def view_reads(self, var: str) -> list[str]:
        """The schema variables the view of `var` reads (the window must give them in full)."""
        return view_reads(self.views[var], self.observed)

    def viewed(self, var: str, values: dict[str, str]) -> str:
        """The view of `var` with each schema variable replaced by the given TLA+ text."""
        if var not in self.views:
            return values[var]
        names = {v: f"({t})" for v, t in values.items()}
        return "(" + (substitute(self.views[var], names) if names else self.views[var]) + ")"


def view_reads(view: str, variables: list[str]) -> list[str]:
    return [v for v in variables if substitute(view, {v: "(0)"}) != view]


def n(plan: Plan, name: str) -> str:
    return f"_{name}_{plan.nonce}"


def module_name(plan: Plan) -> str:
    return f"ConfWrap{plan.nonce}"


def pinned_vars(plan: Plan, case: Case) -> list[str]:
    """Spec variables this case assigns directly: identity-mapped and given in full, or built
    by the adapter's state mapping from the window's observed state."""
    out = set(state_mapped(plan))
    for var, value in case.pre.items():
        expr = plan.adapter.variables.get(var, var).strip()
        if expr == var and var in plan.spec_variables and is_full(value, plan.vocab[var]):
            out.add(var)
    return sorted(out)


def identity_pinned(plan: Plan, case: Case) -> set[str]:
    """Schema variables whose window value is assigned to the spec variable of the same name
    as it is: their pre-state constraint holds by construction."""
    return {
        var
        for var, value in case.pre.items()
        if var not in plan.views
        and plan.adapter.variables.get(var, var).strip() == var
        and var in plan.spec_variables
        and var not in plan.adapter.state
        and is_full(value, plan.vocab[var])
    }


def state_mapped(plan: Plan) -> list[str]:
    return [v for v in plan.adapter.state if v in plan.spec_variables]


def adapter_expr(plan: Plan, expr: str, bound: dict[str, str] | None = None) -> str:
    """An adapter expression inside the wrapper: value helpers and bound names substituted."""
    names = {h: n(plan, h) for h in VALUE_HELPERS}
    return substitute(expr, {**names, **(bound or {})})


def prelude(plan: Plan) -> list[str]:
    """Model values, value-mapping helpers and the adapter constants' definitions."""
    model_values = plan.adapter.model_values
    lines = [f"CONSTANTS {', '.join(model_values)}"] if model_values else []
    x = n(plan, "x")
    for name, arms in (
        ("ToSpec", [(c, s) for c, s in plan.adapter.values.items()]),
        ("ToContract", [(s, c) for c, s in plan.adapter.values.items()]),
    ):
        cases = " [] ".join(f"{x} = {a} -> {b}" for a, b in arms)
        body = f"CASE {cases} [] OTHER -> {x}" if arms else x
        lines.append(f"{n(plan, name)}({x}) == {body}")
    for name, value in plan.constants.items():
        lines.append(f"{n(plan, 'K' + name)} == {adapter_expr(plan, value)}")
    return lines


def _constraints(plan: Plan, state: State, skip: set[str]) -> str:
    items = []
    for var in sorted(state):
        if var in skip:
            continue
        i = plan.observed.index(var) + 1
        value = state[var]
        if var in plan.views:
            given = {v: to_tla(state[v]) for v in plan.view_reads(var)}
            items.append(f"<<{i}, FALSE, 0, {plan.viewed(var, given)}>>")
        elif is_full(value, plan.vocab[var]):
            items.append(f"<<{i}, FALSE, 0, {to_tla(value)}>>")
        else:
            items.extend(f"<<{i}, TRUE, {to_tla(k)}, {to_tla(value[k])}>>" for k in sorted(value))
    return "<<" + ", ".join(items) + ">>"


def _viewed(plan: Plan, state: State) -> str:
    """A window state's values of the viewed variables, through their views (sorted)."""
    viewed = [v for v in sorted(plan.views) if v in state]
    values = [plan.viewed(v, {r: to_tla(state[r]) for r in plan.view_reads(v)}) for v in viewed]
    return "<<" + ", ".join(values) + ">>"


def _tuple(items: list[str]) -> str:
    return "<<" + ",\n  ".join(items) + ">>"


def build_module(
    plan: Plan, cases: list[Case], actions: list[str], aux: AuxRule, diagnose: bool = False
) -> str:
    w, d = n(plan, "w"), n(plan, "d")
    lines = [
        f"---- MODULE {module_name(plan)} ----",
        f"EXTENDS {plan.spec_module}, TLC",
        f"VARIABLES {w}, {d}",
    ]
    lines += prelude(plan)
    lines += _projection(plan)
    lines += _tables(plan, cases, actions)
    if diagnose:
        lines.append(f"{n(plan, 'E')} == {_tuple([_viewed(plan, c.post) for c in cases])}")
        lines.append(f"{n(plan, 'EPre')} == {_tuple([_viewed(plan, c.pre) for c in cases])}")
        built = [set(plan.spec_variables) <= set(pinned_vars(plan, c)) for c in cases]
        lines.append(f"{n(plan, 'Built')} == {_tuple([str(b).upper() for b in built])}")
    lines += _init(plan, cases, aux, diagnose)
    lines += _next(plan, actions, diagnose)
    lines.append("====")
    return "\n".join(lines) + "\n"


def _projection(plan: Plan) -> list[str]:
    i, v, c = n(plan, "i"), n(plan, "v"), n(plan, "c")
    arms = [
        f"{i} = {k} -> ({adapter_expr(plan, plan.adapter.variables.get(var, var))})"
        for k, var in enumerate(plan.observed, start=1)
    ]
    projection = ", ".join(f"{n(plan, 'V')}({k})" for k in range(1, len(plan.observed) + 1))
    projected = {v: f"{n(plan, 'V')}({k})" for k, v in enumerate(plan.observed, start=1)}
    views = [
        f"{i} = {k} -> {plan.viewed(var, projected)}"
        for k, var in enumerate(plan.observed, start=1)
        if var in plan.views
    ]
    compared = f"CASE {' [] '.join(views)} [] OTHER -> {n(plan, 'V')}({i})" if views else None
    viewed = ", ".join(f"{n(plan, 'W')}({k})" for k in range(1, len(plan.observed) + 1))
    return [
        f"{n(plan, 'V')}({i}) == CASE " + "\n  [] ".join(arms),
        # What windows are compared with: the projection, through the contract's views.
        f"{n(plan, 'W')}({i}) == {compared or n(plan, 'V') + '(' + i + ')'}",
        f"{n(plan, 'WProj')} == <<{viewed}>>",
        f"{n(plan, 'Sat')}({v}, {c}) == IF {c}[2] THEN {c}[3] \\in DOMAIN {v} "
        f"/\\ {v}[{c}[3]] = {c}[4] ELSE {v} = {c}[4]",
        f"{n(plan, 'Proj')} == <<{projection}>>",
    ]


def _tables(plan: Plan, cases: list[Case], actions: list[str]) -> list[str]:
    pre = [_constraints(plan, c.pre, identity_pinned(plan, c)) for c in cases]
    post = [_constraints(plan, c.post, set()) for c in cases]
    msgs = [to_tla(c.input) if c.input is not None else "0" for c in cases]
    obs = [_observed(plan, c) for c in cases] if state_mapped(plan) else []
    return [
        *([f"{n(plan, 'Obs')} == {_tuple(obs)}"] if obs else []),
        f"{n(plan, 'A')} == {_tuple([str(actions.index(c.action) + 1) for c in cases])}",
        f"{n(plan, 'Actor')} == "
        + _tuple([adapter_expr(plan, plan.adapter.actor_expr(c.actor)) for c in cases]),
        f"{n(plan, 'Msg')} == {_tuple(msgs)}",
        f"{n(plan, 'Real')} == {_tuple(['TRUE' if c.kind == 'real' else 'FALSE' for c in cases])}",
        f"{n(plan, 'P')} == {_tuple(pre)}",
        f"{n(plan, 'Q')} == {_tuple(post)}",
    ]


def _observed(plan: Plan, case: Case) -> str:
    """The window's observed pre-state as a record for state mappings: `obs.<schema var>` for
    each variable the window gives, `obs.inputs` the set of its input messages ({msg} or {})."""
    fields = [f"{var} |-> {to_tla(case.pre[var])}" for var in sorted(case.pre)]
    inputs = "{" + to_tla(case.input) + "}" if case.input is not None else "{}"
    return "[" + ", ".join([*fields, f"inputs |-> {inputs}"]) + "]"


def _check_all(plan: Plan, table: str, primed: bool) -> str:
    w, i, cs = n(plan, "w"), n(plan, "i"), n(plan, "cs")
    value = f"{n(plan, 'W')}({cs}[{i}][1])"
    if primed:
        value = f"({value})'"
    return (
        f"LET {cs} == {table}[{w}] IN \\A {i} \\in DOMAIN {cs} : "
        f"{n(plan, 'Sat')}({value}, {cs}[{i}])"
    )


def _groups(plan: Plan, cases: list[Case]) -> dict[tuple[str, ...], list[int]]:
    groups: dict[tuple[str, ...], list[int]] = {}
    for k, case in enumerate(cases, start=1):
        groups.setdefault(tuple(pinned_vars(plan, case)), []).append(k)
    return dict(sorted(groups.items()))


def _init(plan: Plan, cases: list[Case], aux: AuxRule, diagnose: bool = False) -> list[str]:
    w, j = n(plan, "w"), n(plan, "j")
    groups = _groups(plan, cases)
    lines = []
    merged = _merged(plan, cases) if aux.kind == "explored" else []
    for var in merged:
        given = [to_tla(c.pre[var]) if _partial(plan, c, var) else "<<>>" for c in cases]
        lines.append(f"{n(plan, 'O' + var)} == {_tuple(given)}")
    if aux.kind == "explored":
        lines.append(f"{n(plan, 'C')} == {_tuple(aux.candidates or ['<<>>'])}")
        index_sets = ["{" + ", ".join(map(str, c)) + "}" for c in aux.per_case]
        lines.append(f"{n(plan, 'CI')} == {_tuple(index_sets)}")
    for gi, (variables, members) in enumerate(groups.items()):
        table = n(plan, f"G{gi}")
        member = set(members)
        body = [f"{w} \\in {{{', '.join(map(str, members))}}}"]
        mapped = {v: plan.adapter.state[v] for v in state_mapped(plan)}
        for var in variables:
            if var in mapped:
                obs = f"{n(plan, 'Obs')}[{w}]"
                body.append(f"{var} = ({adapter_expr(plan, mapped[var], {'obs': obs})})")
                continue
            values = [to_tla(c.pre[var]) if k in member else "0" for k, c in enumerate(cases, 1)]
            lines.append(f"{table}{var} == {_tuple(values)}")
            body.append(f"{var} = {table}{var}[{w}]")
        free = [v for v in plan.spec_variables if v not in variables]
        if aux.kind == "explored" and free:
            assigns = " /\\ ".join(f"{v} = {_candidate(plan, aux, v, merged)}" for v in free)
            body.append(f"\\E {j} \\in {n(plan, 'CI')}[{w}] : {assigns}")
        lines.append(f"{n(plan, 'Pin')}{gi} == " + " /\\ ".join(body))
    lines += [
        f"{n(plan, 'Init')} ==",
        f"  /\\ {n(plan, 'd')} = 0",
        "  /\\ " + " \\/ ".join(f"{n(plan, 'Pin')}{gi}" for gi in range(len(groups))),
    ]
    if aux.kind == "typeok":
        lines.append("  /\\ TypeOK")
    if diagnose:
        # A pre-state built entirely from the window, as its mappings show it, for the diff
        # that says why it does not match (printed before the check that drops it).
        shown = f'<<"{plan.nonce}p", {w}, {n(plan, "WProj")}, {n(plan, "EPre")}[{w}]>>'
        lines.append(f"  /\\ IF {n(plan, 'Built')}[{w}] THEN PrintT({shown}) ELSE TRUE")
    lines.append("  /\\ " + _check_all(plan, n(plan, "P"), primed=False))
    return lines


def _partial(plan: Plan, case: Case, var: str) -> bool:
    return var in case.pre and not is_full(case.pre[var], plan.vocab[var])


def _merged(plan: Plan, cases: list[Case]) -> list[str]:
    """Identity-mapped function variables some case gives only partly: their given keys
    override the explored candidate's value, the other keys come from the candidate."""
    return sorted(
        var
        for var in plan.vocab
        if var in plan.spec_variables
        and plan.adapter.variables.get(var, var).strip() == var
        and any(_partial(plan, c, var) for c in cases)
    )


def _candidate(plan: Plan, aux: AuxRule, var: str, merged: list[str]) -> str:
    base = f"{n(plan, 'C')}[{n(plan, 'j')}][{aux.variables.index(var) + 1}]"
    if var not in merged:
        return base
    x, given = n(plan, "x"), f"{n(plan, 'O' + var)}[{n(plan, 'w')}]"
    return (
        f"[{x} \\in DOMAIN {base} |-> IF {x} \\in DOMAIN {given} THEN {given}[{x}] "
        f"ELSE {base}[{x}]]"
    )


def action_operator(plan: Plan, index: int) -> str:
    return f"{n(plan, 'Do')}{index}"


def _next(plan: Plan, actions: list[str], diagnose: bool = False) -> list[str]:
    w, d = n(plan, "w"), n(plan, "d")
    bound = {"actor": f"{n(plan, 'Actor')}[{w}]", "msg": f"{n(plan, 'Msg')}[{w}]"}
    lines = [
        f"{action_operator(plan, i)} == {adapter_expr(plan, plan.adapter.actions[action], bound)}"
        for i, action in enumerate(actions, start=1)
    ]
    arms = " [] ".join(
        f"{n(plan, 'A')}[{w}] = {i} -> {action_operator(plan, i)}"
        for i in range(1, len(actions) + 1)
    )
    count = "TRUE"
    if plan.count:
        count = f'IF {n(plan, "Real")}[{w}] THEN PrintT(<<"{plan.nonce}c", {w}>>) ELSE TRUE'
    lines += [
        f"{n(plan, 'Next')} ==",
        f"  /\\ {d} = 0",
        f"  /\\ {count}",
        f"  /\\ {d}' = 1",
        f"  /\\ {w}' = {w}",
        f"  /\\ CASE {arms}",
    ]
    if diagnose:
        # Every successor, projected to the schema and viewed, for the failing-window diff.
        lines.append(
            f'  /\\ PrintT(<<"{plan.nonce}s", {w}, {n(plan, "WProj")}\', {n(plan, "E")}[{w}]>>)'
        )
    else:
        lines.append("  /\\ " + _check_all(plan, n(plan, "Q"), primed=True))
        lines.append(f'  /\\ PrintT(<<"{plan.nonce}v", {w}>>)')
    return lines


def build_cfg(plan: Plan) -> str:
    lines = [f"INIT {n(plan, 'Init')}", f"NEXT {n(plan, 'Next')}"]
    for name in plan.constants:
        lines.append(f"CONSTANT {name} <- {n(plan, 'K' + name)}")
    lines += adapter_text.model_value_cfg(plan.adapter)
    return "\n".join(lines) + "\n"
