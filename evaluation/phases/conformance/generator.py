"""The per-window wrapper module: a failing event's action from given states of the spec, for
the diagnosis (diagnose.py: its successors; blocking.py: its first false guard). P3's verdicts
come from followmodule.py; these wrappers take their pre-states from the states a following run
printed (`AuxRule` kind "explored", `Plan.from_windows` False), never from a window.

The wrapper EXTENDS the spec (rather than INSTANCE-ing it) so adapter expressions, written over
the spec's own names, can be used as they are, and the spec's variables are the wrapper's
variables without being re-declared. Every name the wrapper adds starts with `_`
and ends with a per-run random nonce, so no spec can define or refer to it. Only TLC is extended
besides the spec (for `:>`/`@@` and PrintT); the window index ranges over `DOMAIN` of a tuple,
so Naturals is not needed.

Init picks the case `_w` and its pre-state, numbered `_j`: every spec variable from one of the
states the following run printed for the case (`_j` its number).
The window's pre-state constraints are then checked on the projection. Next prints
`<<"<nonce>c", k, j>>` for each pre-state, takes one step of the case's action with the actor
(and message) bound, checks the post-state constraints, and a successor that satisfies them
prints `<<"<nonce>v", k, j>>` as the very last conjunct. A case passes only when every one of
its pre-states printed a pass (runner.py): no convenient choice among them. With `-deadlock`,
TLC explores every case; the spec can neither see `_w` nor know the nonce, so it cannot forge a
pass.
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

AuxKind = Literal["pinned", "explored"]


@dataclass
class AuxRule:
    """Which pre-states each case is checked from (auxstate.py).

    kind "pinned": every case is built from its window (no explored state is needed).
    kind "explored": some cases are not: `candidates[i]` is the tuple text of one reachable
    state over `variables`, and `per_case[k]` the candidate numbers case k is built from in a
    generated module (the exploration decides those cases itself, explore.py; what is kept here
    are the states each failed from, for the diagnosis; empty for a case built from its window).
    """

    kind: AuxKind
    variables: list[str] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)
    per_case: list[list[int]] = field(default_factory=list)
    unmatched: list[int] = field(default_factory=list)  # explored cases no state showed
    # per case: (variables a window leaves out, every combination of their contract values as
    # TLA+ tuples), or ([], []) (auxstate rule 3)
    gaps: list[tuple[list[str], list[str]]] = field(default_factory=list)

    def subset(self, chosen: list[int], keep: dict[int, set[int]] | None = None) -> AuxRule:
        """The rule for the cases `chosen` (indexes into per_case), in that order; `keep`
        narrows a case's candidates (case index -> candidate numbers)."""
        if self.kind != "explored":
            return self
        per_case = [
            [j for j in self.per_case[i] if keep is None or i not in keep or j in keep[i]]
            for i in chosen
        ]
        gaps = [self.gaps[i] for i in chosen] if self.gaps else []
        return AuxRule(self.kind, self.variables, self.candidates, per_case, [], gaps)

    def gap_of(self, k: int) -> list[str]:
        """The left-out variables of case k (0-based) under rule 3."""
        return self.gaps[k][0] if self.gaps else []


@dataclass(frozen=True)
class Probe:
    """What blocking.py adds to a wrapper's Init: definitions, and one last conjunct of Init."""

    definitions: list[str]
    conjunct: str


@dataclass
class Plan:
    spec_module: str
    nonce: str
    adapter: Adapter
    observed: list[str]  # schema variables windows may constrain, in projection order
    vocab: dict[str, Vocab]
    spec_variables: list[str]
    constants: dict[str, str]  # constant -> TLA+ value, only those the spec declares
    init: str = "Init"  # the spec's behaviour, by the adapter's (or cfg's) names
    next: str = "Next"
    # schema variable -> the contract's view of it (contract constants already substituted):
    # windows and the spec's projection are compared through it (schema `view`)
    views: dict[str, str] = field(default_factory=dict)
    # spec variables whose state mapping the spec's behaviour did not confirm (credit.py): they
    # are not built from windows
    refused_state: set[str] = field(default_factory=set)
    # Whether a case may be built from its window (the per-window wrappers of diagnose.py and
    # blocking.py); False when every pre-state must be a state the spec reached.
    from_windows: bool = True

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
    by a credited state mapping from the window's observed state."""
    out = set(state_mapped(plan))
    if not plan.from_windows:
        return sorted(out)
    for var, value in case.pre.items():
        expr = plan.adapter.variables.get(var, var).strip()
        if expr == var and var in plan.spec_variables and is_full(value, plan.vocab[var]):
            out.add(var)
    return sorted(out)


def identity_pinned(plan: Plan, case: Case) -> set[str]:
    """Schema variables whose window value is assigned to the spec variable of the same name
    as it is: their pre-state constraint holds by construction."""
    if not plan.from_windows:
        return set()
    return {
        var
        for var, value in case.pre.items()
        if var not in plan.views
        and plan.adapter.variables.get(var, var).strip() == var
        and var in plan.spec_variables
        and var not in plan.adapter.state
        and is_full(value, plan.vocab[var])
    }


def built(plan: Plan, case: Case) -> bool:
    """Whether this case's one pre-state is built from its window (nothing left to choose)."""
    return set(pinned_vars(plan, case)) >= set(plan.spec_variables)


def state_mapped(plan: Plan) -> list[str]:
    """Spec variables with a credited state mapping."""
    return [
        v for v in plan.adapter.state if v in plan.spec_variables and v not in plan.refused_state
    ]


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


def whole_value(plan: Plan, state: State, var: str) -> str | None:
    """The TLA+ text a window state gives for `var` as a whole (through its view), or None
    when the state gives only part of it."""
    if var in plan.views:
        if any(v not in state for v in plan.view_reads(var)):
            return None
        return plan.viewed(var, {v: to_tla(state[v]) for v in plan.view_reads(var)})
    if is_full(state[var], plan.vocab[var]):
        return to_tla(state[var])
    return None


def _constraints(plan: Plan, state: State, skip: set[str]) -> str:
    return "<<" + ", ".join(constraint_items(plan, state, skip)) + ">>"


def constraint_items(plan: Plan, state: State, skip: set[str]) -> list[str]:
    """A window state as constraints `<<var number, partial?, key, value>>`, one per variable
    given whole, else one per key given."""
    items = []
    for var in sorted(state):
        if var in skip:
            continue
        i = plan.observed.index(var) + 1
        whole = whole_value(plan, state, var)
        if whole is not None:
            items.append(f"<<{i}, FALSE, 0, {whole}>>")
        else:
            value = state[var]
            items.extend(f"<<{i}, TRUE, {to_tla(k)}, {to_tla(value[k])}>>" for k in sorted(value))
    return items


def _viewed(plan: Plan, state: State) -> str:
    """A window state's values of the viewed variables, through their views (sorted)."""
    viewed = [v for v in sorted(plan.views) if v in state]
    values = [plan.viewed(v, {r: to_tla(state[r]) for r in plan.view_reads(v)}) for v in viewed]
    return "<<" + ", ".join(values) + ">>"


def _tuple(items: list[str]) -> str:
    return "<<" + ",\n  ".join(items) + ">>"


def build_module(
    plan: Plan,
    cases: list[Case],
    actions: list[str],
    aux: AuxRule,
    diagnose: bool = False,
    probe: Probe | None = None,
) -> str:
    """The wrapper over `cases`; with `probe`, only its Init, followed by the probe's
    definitions and its conjunct (blocking.py), and a Next that takes no step."""
    w, d, j = n(plan, "w"), n(plan, "d"), n(plan, "j")
    lines = [
        f"---- MODULE {module_name(plan)} ----",
        f"EXTENDS {plan.spec_module}, TLC",
        f"VARIABLES {w}, {d}, {j}",
    ]
    lines += prelude(plan)
    lines += _projection(plan)
    lines += _tables(plan, cases, actions)
    if diagnose:
        lines.append(f"{n(plan, 'E')} == {_tuple([_viewed(plan, c.post) for c in cases])}")
        lines.append(f"{n(plan, 'EPre')} == {_tuple([_viewed(plan, c.pre) for c in cases])}")
        flags = [str(built(plan, c)).upper() for c in cases]
        lines.append(f"{n(plan, 'Built')} == {_tuple(flags)}")
    lines += probe.definitions if probe else []
    lines += _init(plan, cases, aux, diagnose)
    if probe is None:
        lines += _next(plan, actions, diagnose)
    else:
        # FALSE, but an action (TLC refuses a constant Next): Init's states are all it checks.
        stays = f"UNCHANGED <<{w}, {d}, {j}>>"
        lines += [f"  /\\ {probe.conjunct}", f"{n(plan, 'Next')} == FALSE /\\ {stays}"]
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
    # An explored candidate is checked against every constraint; a built pre-state need not be
    # against what holds by construction.
    pre = [
        _constraints(plan, c.pre, identity_pinned(plan, c) if built(plan, c) else set())
        for c in cases
    ]
    post = [_constraints(plan, c.post, set()) for c in cases]
    msgs = [to_tla(c.input) if c.input is not None else "0" for c in cases]
    obs = [_observed(plan, c) for c in cases] if state_mapped(plan) else []
    return [
        *([f"{n(plan, 'Obs')} == {_tuple(obs)}"] if obs else []),
        f"{n(plan, 'A')} == {_tuple([str(actions.index(c.action) + 1) for c in cases])}",
        f"{n(plan, 'Actor')} == "
        + _tuple([adapter_expr(plan, plan.adapter.actor_expr(c.actor)) for c in cases]),
        f"{n(plan, 'Msg')} == {_tuple(msgs)}",
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


# How a case's pre-state is made: (variables built from the window, variables completed by rule
# 3), or None for a case whose pre-states are explored states.
GroupKey = tuple[tuple[str, ...], tuple[str, ...]] | None


def _groups(plan: Plan, cases: list[Case], aux: AuxRule) -> dict[GroupKey, list[int]]:
    """Cases by how their pre-state is made (`GroupKey`), the explored ones last."""
    groups: dict[GroupKey, list[int]] = {}
    for k, case in enumerate(cases, start=1):
        gap = aux.gap_of(k - 1)
        key = (tuple(pinned_vars(plan, case)), tuple(gap)) if gap or built(plan, case) else None
        groups.setdefault(key, []).append(k)
    return dict(sorted(groups.items(), key=lambda kv: (kv[0] is None, kv[0] or ())))


def _init(plan: Plan, cases: list[Case], aux: AuxRule, diagnose: bool = False) -> list[str]:
    w, j = n(plan, "w"), n(plan, "j")
    lines = []
    groups = _groups(plan, cases, aux)
    if any(aux.gap_of(k) for k in range(len(cases))):
        rows = [_tuple(aux.gaps[k][1]) if aux.gaps[k][0] else "<<>>" for k in range(len(cases))]
        lines.append(f"{n(plan, 'Gap')} == {_tuple(rows)}")
    pins = []
    for gi, (key, members) in enumerate(groups.items()):
        body = [f"{w} \\in {{{', '.join(map(str, members))}}}"]
        if key is None:
            lines += _candidates(plan, aux)
            assigns = [f"{v} = {_candidate(plan, aux, v)}" for v in plan.spec_variables]
            chosen = f"\\E {j}0 \\in {n(plan, 'CI')}[{w}] : {j} = {n(plan, 'CJ')}[{j}0]"
            body.append(" /\\ ".join([chosen, *assigns]))
        else:
            variables, gap = key
            lines += _pinned_tables(plan, cases, gi, variables, set(members))
            body += [_assign(plan, gi, var) for var in variables]
            body.append(_completion(plan, gap) if gap else f"{j} = 0")
        pins.append(f"{n(plan, 'Pin')}{gi}")
        lines.append(f"{pins[-1]} == " + " /\\ ".join(body))
    lines += [
        f"{n(plan, 'Init')} ==",
        f"  /\\ {n(plan, 'd')} = 0",
        "  /\\ " + " \\/ ".join(pins),
    ]
    if diagnose:
        # A pre-state built entirely from the window, as its mappings show it, for the diff
        # that says why it does not match (printed before the check that drops it).
        shown = f'<<"{plan.nonce}p", {w}, {n(plan, "WProj")}, {n(plan, "EPre")}[{w}]>>'
        lines.append(f"  /\\ IF {n(plan, 'Built')}[{w}] THEN PrintT({shown}) ELSE TRUE")
    lines.append("  /\\ " + _check_all(plan, n(plan, "P"), primed=False))
    return lines


def _completion(plan: Plan, gap: tuple[str, ...]) -> str:
    """Each combination of the left-out variables' values, numbered by `_j`."""
    w, j, g = n(plan, "w"), n(plan, "j"), n(plan, "g")
    row = f"{n(plan, 'Gap')}[{w}][{g}]"
    assigns = [f"{v} = {row}[{i}]" for i, v in enumerate(gap, start=1)]
    return " /\\ ".join([f"\\E {g} \\in DOMAIN {n(plan, 'Gap')}[{w}] : {j} = {g}", *assigns])


def _candidates(plan: Plan, aux: AuxRule) -> list[str]:
    """The explored states this module's cases use (`C`, numbered from 1 here), each case's
    positions in it (`CI`) and each position's candidate number in the whole rule (`CJ`)."""
    used = sorted({j for c in aux.per_case for j in c})
    position = {j: k for k, j in enumerate(used, start=1)}
    index_sets = ["{" + ", ".join(str(position[j]) for j in c) + "}" for c in aux.per_case]
    return [
        f"{n(plan, 'C')} == {_tuple([aux.candidates[j - 1] for j in used] or ['<<>>'])}",
        f"{n(plan, 'CJ')} == <<{', '.join(map(str, used))}>>",
        f"{n(plan, 'CI')} == {_tuple(index_sets)}",
    ]


def _pinned_tables(
    plan: Plan, cases: list[Case], gi: int, variables: tuple[str, ...], members: set[int]
) -> list[str]:
    mapped = set(state_mapped(plan))
    lines = []
    for var in variables:
        if var in mapped:
            continue
        values = [to_tla(c.pre[var]) if k in members else "0" for k, c in enumerate(cases, 1)]
        lines.append(f"{n(plan, f'G{gi}')}{var} == {_tuple(values)}")
    return lines


def _assign(plan: Plan, gi: int, var: str) -> str:
    w = n(plan, "w")
    if var in state_mapped(plan):
        obs = f"{n(plan, 'Obs')}[{w}]"
        return f"{var} = ({adapter_expr(plan, plan.adapter.state[var], {'obs': obs})})"
    return f"{var} = {n(plan, f'G{gi}')}{var}[{w}]"


def _candidate(plan: Plan, aux: AuxRule, var: str) -> str:
    return f"{n(plan, 'C')}[{n(plan, 'j')}0][{aux.variables.index(var) + 1}]"


def action_operator(plan: Plan, index: int) -> str:
    return f"{n(plan, 'Do')}{index}"


def _next(plan: Plan, actions: list[str], diagnose: bool = False) -> list[str]:
    w, d, j = n(plan, "w"), n(plan, "d"), n(plan, "j")
    bound = {"actor": f"{n(plan, 'Actor')}[{w}]", "msg": f"{n(plan, 'Msg')}[{w}]"}
    lines = [
        f"{action_operator(plan, i)} == {adapter_expr(plan, plan.adapter.actions[action], bound)}"
        for i, action in enumerate(actions, start=1)
    ]
    arms = " [] ".join(
        f"{n(plan, 'A')}[{w}] = {i} -> {action_operator(plan, i)}"
        for i in range(1, len(actions) + 1)
    )
    lines += [
        f"{n(plan, 'Next')} ==",
        f"  /\\ {d} = 0",
        f'  /\\ PrintT(<<"{plan.nonce}c", {w}, {j}>>)',
        f"  /\\ {d}' = 1",
        f"  /\\ {w}' = {w}",
        f"  /\\ {j}' = {j}",
        f"  /\\ CASE {arms}",
    ]
    if diagnose:
        # Every successor, projected to the schema and viewed, for the failing-window diff.
        lines.append(
            f'  /\\ PrintT(<<"{plan.nonce}s", {w}, {n(plan, "WProj")}\', {n(plan, "E")}[{w}]>>)'
        )
    else:
        lines.append("  /\\ " + _check_all(plan, n(plan, "Q"), primed=True))
        lines.append(f'  /\\ PrintT(<<"{plan.nonce}v", {w}, {j}>>)')
    return lines


def build_cfg(plan: Plan) -> str:
    lines = [f"INIT {n(plan, 'Init')}", f"NEXT {n(plan, 'Next')}"]
    for name in plan.constants:
        lines.append(f"CONSTANT {name} <- {n(plan, 'K' + name)}")
    lines += adapter_text.model_value_cfg(plan.adapter)
    return "\n".join(lines) + "\n"
