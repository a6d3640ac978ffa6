"""State mappings propose, the spec's behaviour confirms (adapter `state:`).

A state mapping builds spec variables from a window's observed state (`obs`), for state the
traces do not show (etcd's logs and messages). It is credited, and so builds windows'
pre-states, only where the spec's own reachable states (auxstate.explore) agree with it:

(a) reads back: on every explored state s, the mapping applied to s's projection gives s's
    value of the variable. A mapping that reads nothing of `obs` but the window's input
    messages (`obs.inputs`, the message a receive consumes) has no value on a state without a
    window, so (a) does not apply to it; (b) does.
(b) invents nothing: every leaf value (string, boolean, model value, record field or function
    key) the mapping gives the variable in any window also occurs in that variable in some
    explored state.

A refused mapping is not used: its variable is left to the explored rule like any variable the
window does not pin, so the verdict is the one the literal mapping gives (auxstate.py). Each
refusal names the variable, the state or window, and both values; it is reported in the phase's
details (`state_mapping.refused`) and shown on the run page.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from evaluation.details import StateMappingRefusal
from evaluation.inputs.adapter_check import _tree
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import Case
from evaluation.phases.conformance.diagnose import json_value, read_tagged
from evaluation.phases.conformance.runner import Budget, run_module
from evaluation.phases.conformance.tlatext import tla_text
from evaluation.tla.codes import MP
from evaluation.tla.parsed import ParsedSpec
from evaluation.tla.sandbox.limits import ToolRun
from evaluation.tla.tlcvalue import FrozenDict, ModelValue, TlaSet, TlcValue
from evaluation.tla.treesitter import text_of, walk

if TYPE_CHECKING:  # explore.py imports this module
    from evaluation.phases.conformance.explore import Exploration

# A leaf value of a state, tagged by its kind ("str", "bool", "model value"): rule (b) compares
# them, so the string "s1" and the model value s1 stay apart.
Leaf = tuple[str, str | bool | ModelValue]

MAX_WINDOW_RUNS = 12  # (b)'s evaluation runs, after halving chunks whose output was cut


class MappingError(Exception):
    """TLC could not evaluate some state mappings on the spec's reachable states."""

    def __init__(self, variables: list[str], text: str) -> None:
        super().__init__(text)
        self.variables = variables

    def refusals(self) -> list[StateMappingRefusal]:
        return [
            {
                "variable": v,
                "rule": "reads back",
                "reason": f"TLC cannot evaluate it on a state the spec reaches from Init: {self}",
            }
            for v in self.variables
        ]


def obs_reads(expr: str) -> set[str] | None:
    """The fields of `obs` an expression reads (`obs.logLen`), or None when it uses `obs` in
    another way (`DOMAIN obs`, `obs[x]`) that could read any of them."""
    node = _tree(expr)
    if node is None:
        return None
    fields: set[str] = set()
    for n in walk(node):
        if n.type != "identifier_ref" or text_of(n) != "obs":
            continue
        parent = n.parent
        if parent is not None and parent.type == "record_value":
            if parent.children[0].start_byte != n.start_byte:
                continue  # a record field that happens to be called obs (`m.obs`)
            fields.add(text_of(parent.children[-1]))
        else:
            return None
    return fields


def input_only(expr: str) -> bool:
    return obs_reads(expr) == {"inputs"}


def checked_on_states(plan: gen.Plan) -> list[str]:
    """The state-mapped variables rule (a) applies to."""
    return [v for v in gen.state_mapped(plan) if not input_only(plan.adapter.state[v])]


def mapping_operator(plan: gen.Plan, var: str) -> str:
    return gen.n(plan, f"M{gen.state_mapped(plan).index(var)}")


def check_operator(plan: gen.Plan, var: str) -> str:
    return gen.n(plan, f"X{gen.state_mapped(plan).index(var)}")


def mapping_definitions(plan: gen.Plan, checked: list[str]) -> list[str]:
    """Per checked mapping: its value on the projection of the current state (no inputs), and
    a check that prints `<<"<nonce>x", k, projection, spec value, mapped value>>` where it does
    not read back. Each on lines of its own, so TLC's error position names the mapping."""
    if not checked:
        return []
    record = ", ".join(
        [f"{v} |-> {gen.n(plan, 'V')}({k})" for k, v in enumerate(plan.observed, 1)]
        + ["inputs |-> {}"]
    )
    obs = gen.n(plan, "ObsS")
    lines = [f"{obs} == [{record}]"]
    for k, var in enumerate(checked, start=1):
        value = mapping_operator(plan, var)
        expr = gen.adapter_expr(plan, plan.adapter.state[var], {"obs": obs})
        lines.append(f"{value} == {expr}")
        shown = f'<<"{plan.nonce}x", {k}, {gen.n(plan, "Proj")}, {var}, {value}>>'
        # IF, not \\/: in an action TLC takes both disjuncts as alternatives.
        lines.append(
            f"{check_operator(plan, var)} == IF {value} = {var} THEN TRUE ELSE PrintT({shown})"
        )
    return lines


_POSITION = re.compile(
    r"[Ll]ine (\d+), col(?:umn)? \d+ to [Ll]ine \d+, col(?:umn)? \d+ (?:of|in) (?:module )?(\w+)"
)


def evaluation_problem(
    plan: gen.Plan, module: str, run: ToolRun, mapped: list[str]
) -> MappingError | None:
    """The mappings an exploration run's error points into (by TLC's line numbers in the
    generated module), or None when it points into none of them."""
    if not mapped:
        return None
    text = "\n".join(m.text for m in run.messages if m.severity == MP.ERROR) or run.note or ""
    lines = _definition_lines(plan, module, mapped)
    named = {
        var
        for number, name in _POSITION.findall(text)
        if name == gen.module_name(plan)
        for var, span in lines.items()
        if int(number) in span
    }
    if not named:
        return None
    return MappingError(sorted(named), text.replace(plan.nonce, "")[:600])


def _definition_lines(plan: gen.Plan, module: str, mapped: list[str]) -> dict[str, set[int]]:
    """The lines of each mapping's two operators in the module (up to the next definition)."""
    rows = module.splitlines()
    starts = [i for i, row in enumerate(rows, 1) if re.match(r"\S+ ==", row)] + [len(rows) + 1]
    out: dict[str, set[int]] = {}
    for var in mapped:
        out[var] = set()
        for name in (mapping_operator(plan, var), check_operator(plan, var)):
            first = next(i for i, row in enumerate(rows, 1) if row.startswith(f"{name} =="))
            out[var] |= set(range(first, next(s for s in starts if s > first)))
    return out


def judge(
    plan: gen.Plan, spec: ParsedSpec, seen: Exploration, cases: list[Case], budget: Budget
) -> list[StateMappingRefusal]:
    """Rule (b) for the state mappings not refused yet, each refusal {variable, rule, reason,
    ...}; `seen` is an exploration (explore.Exploration) that printed their variables."""
    mapped = gen.state_mapped(plan)
    if not mapped or not cases:
        return []
    given = window_values(plan, spec, mapped, cases, budget)
    refusals = (_invents(var, seen, given.get(var, {}), cases) for var in mapped)
    return [r for r in refusals if r]


def refusal_text(refusal: StateMappingRefusal) -> str:
    return f"state mapping for {refusal['variable']} refused: {refusal['reason']}"


def unconfirmed(var: str) -> StateMappingRefusal:
    """Rule (a) could not be judged: TLC's output was cut short, so a disagreement may be lost."""
    return {
        "variable": var,
        "rule": "reads back",
        "reason": "TLC's output was cut short, so that it reads back could not be confirmed",
    }


def reads_back(var: str, seen: Exploration) -> StateMappingRefusal:
    """Rule (a)'s refusal of `var`, from the first mismatch the exploration printed."""
    projection, actual, mapped = seen.mismatches[var]
    return {
        "variable": var,
        "rule": "reads back",
        "state": {k: json_value(v) for k, v in projection.items()},
        "mapped": json_value(mapped),
        "spec": json_value(actual),
        "reason": (
            f"on a state the spec reaches from Init, whose projection is {_brief(projection)}, "
            f"the spec has {var} = {_brief(actual)} but the mapping gives {_brief(mapped)}"
        ),
    }


def _invents(
    var: str, seen: Exploration, given: dict[int, TlcValue], cases: list[Case]
) -> StateMappingRefusal | None:
    known = seen.leaves.get(var, set())
    for ci in sorted(given):
        new = sorted(leaves(given[ci]) - known, key=repr)
        if new:
            case = cases[ci]
            return {
                "variable": var,
                "rule": "invents nothing",
                "window": {"action": case.action, "actor": case.actor, "pre_state": case.pre},
                "mapped": json_value(given[ci]),
                "value": json_value(new[0][1]),
                "reason": (
                    f"it gives {var} the value {_brief(new[0][1])} (in {_brief(given[ci])}, "
                    f"for a {case.action} window of actor {case.actor}), which {var} has in "
                    f"none of the {seen.reached} states the spec reaches from Init"
                    + (
                        "; TLC's output was cut short, so fewer of them are known"
                        if seen.cut
                        else ""
                    )
                ),
            }
    return None


def leaves(value: TlcValue) -> set[Leaf]:
    """The strings, booleans and model values in a value (tagged by kind, so "s1" and the model
    value s1 stay apart), record fields and function keys included."""
    out: set[Leaf] = set()
    stack: list[TlcValue] = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, bool):
            out.add(("bool", v))
        elif isinstance(v, str):
            out.add(("str", v))
        elif isinstance(v, ModelValue):
            out.add(("model value", v))
        elif isinstance(v, TlaSet):
            stack.extend(v.items)
        elif isinstance(v, tuple):
            stack.extend(v)
        elif isinstance(v, FrozenDict | dict):
            stack.extend(v.keys())
            stack.extend(v.values())
    return out


def window_values(
    plan: gen.Plan, spec: ParsedSpec, mapped: list[str], cases: list[Case], budget: Budget
) -> dict[str, dict[int, TlcValue]]:
    """variable -> case index -> the mapping's value on that window (cases TLC could not
    evaluate are left out: their check ends in an error verdict anyway)."""
    out: dict[str, dict[int, TlcValue]] = {v: {} for v in mapped}
    queue = [list(range(len(cases)))]
    runs = 0
    while queue and runs < MAX_WINDOW_RUNS:
        chunk = queue.pop(0)
        runs += 1
        run = run_module(plan, spec, _window_module(plan, mapped, cases, chunk), budget)
        if run.status != "ok" or run.truncated:
            if len(chunk) > 1:
                queue[:0] = [chunk[: len(chunk) // 2], chunk[len(chunk) // 2 :]]
            continue
        for item in read_tagged(run.output, plan.nonce, "b"):
            k, values = item[1], item[2]
            if 1 <= k <= len(chunk):
                for var, value in zip(mapped, values, strict=True):
                    out[var][chunk[k - 1]] = value
    return out


def _window_module(plan: gen.Plan, mapped: list[str], cases: list[Case], chunk: list[int]) -> str:
    """Each window's mapped values printed while computing the initial state; the spec's
    variables are given a dummy value."""
    obs, k = gen.n(plan, "Obs"), gen.n(plan, "k")
    table = gen._tuple([gen._observed(plan, cases[i]) for i in chunk])
    values = ", ".join(
        gen.adapter_expr(plan, plan.adapter.state[v], {"obs": f"{obs}[{k}]"}) for v in mapped
    )
    dummies = " /\\ ".join(f"{v} = 0" for v in plan.spec_variables)
    return (
        "\n".join(
            [
                f"---- MODULE {gen.module_name(plan)} ----",
                f"EXTENDS {plan.spec_module}, TLC",
                *gen.prelude(plan),
                f"{obs} == {table}",
                f"{gen.n(plan, 'Init')} == /\\ {dummies}",
                f'  /\\ \\A {k} \\in DOMAIN {obs} : PrintT(<<"{plan.nonce}b", {k}, <<{values}>>>>)',
                # TLC wants an action here; nothing is explored past the initial states.
                f"{gen.n(plan, 'Next')} == UNCHANGED <<{', '.join(plan.spec_variables)}>>",
                "====",
            ]
        )
        + "\n"
    )


def _brief(value: Any) -> str:
    """A value as TLA+ text (model values bare, strings quoted), cut to a readable length."""
    text = tla_text(value)
    return text if len(text) <= 200 else text[:197] + "..."
