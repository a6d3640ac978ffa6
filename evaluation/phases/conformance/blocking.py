"""Why an action is not enabled: the first of its conjuncts that is false at a window's pre-state.

Computed by TLC, never guessed from the text: a probe module (the wrapper's Init, with no Next)
evaluates the action's guards in order at each failing pre-state and prints the number of the
first false one with the values of the variables it reads. The guards are the action's top-level
conjuncts that name no primed variable, and, where a conjunct calls a definition whose body is a
conjunction, that definition's conjuncts in its place (so a guard hidden in a helper is named
where it is written). Evaluation follows TLC's own left-to-right order, so a guard that is only
defined once an earlier one holds (`x \\in DOMAIN f /\\ f[x] > 0`) is never evaluated alone.

Each guard keeps its text at its own column (bulleted lists inside it are layout-sensitive), with
the parameters of the definition it comes from bound by a LET to the call's arguments. A probe
that TLC cannot evaluate (a guard that is not a Boolean, an error in a guard) names nothing: the
window's other diagnostics are made by another run and do not depend on this one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from evaluation.details import BlockingConjunct, SettingConjunct
from evaluation.inputs.adapter_check import identifiers
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import Case
from evaluation.phases.conformance.diagnose import read_tagged
from evaluation.phases.conformance.runner import Checker
from evaluation.tla.parsed import ParsedSpec
from evaluation.tla.reads import Reads
from evaluation.tla.spectext import split_call, substitute
from evaluation.tla.tlcvalue import json_value, to_json_like
from evaluation.tla.treesitter import text_of, walk

MAX_DEPTH = 4  # definitions followed into from the action (a guard behind more is not named)
MAX_TEXT = 200  # characters of a guard's text shown


@dataclass(frozen=True)
class Guard:
    line: int  # in the spec as submitted
    column: int
    text: str  # as written, comments blanked
    params: dict[str, str]  # parameter of its definition -> the argument's TLA+ text
    reads: list[str]  # spec variables it reads, directly or through definitions


@dataclass(frozen=True)
class Step:
    line: int
    text: str
    changes: frozenset[str]  # spec variables it may change


def guards(spec: ParsedSpec, mapping: str) -> list[Guard]:
    """The guards of the action an adapter mapping calls (`Op(args)` or `Op`), in evaluation
    order; none for a mapping of another shape (a quantifier, a disjunction)."""
    call = split_call(mapping)
    if call is None:
        return []
    return _walk_action(spec, Reads(spec.tree, spec.variables), call)[0]


def setters(
    plan: gen.Plan, spec: ParsedSpec, action: str, schema_variables: list[str]
) -> list[SettingConjunct]:
    """For each schema variable a post-state differs in, the first conjunct of the action's
    step that may change a spec variable its mapping reads (none where no conjunct does); the
    conjuncts are read from the syntax, as `reads.py` reads what may change."""
    call = split_call(plan.adapter.actions[action])
    if call is None:
        return []
    reads = Reads(spec.tree, spec.variables)
    steps = _walk_action(spec, reads, call)[1]
    out: list[SettingConjunct] = []
    for var in schema_variables:
        mapped = reads.of_names(identifiers(plan.adapter.variables.get(var, var)))
        step = next((s for s in steps if s.changes & mapped), None)
        if step is not None:
            out.append({"variable": var, "line": step.line, "text": step.text})
    return out


def _walk_action(
    spec: ParsedSpec, reads: Reads, call: tuple[str, list[str]]
) -> tuple[list[Guard], list[Step]]:
    name, args = call
    out: list[Guard] = []
    steps: list[Step] = []
    _collect(spec, reads, name, args, out, 0, set(), steps)
    return out, steps


def _collect(
    spec: ParsedSpec,
    reads: Reads,
    name: str,
    args: list[str],
    out: list[Guard],
    depth: int,
    seen: set[str],
    steps: list[Step],
) -> bool:
    """Append `name`'s guards; False when `name` is not a plain definition to follow."""
    node = reads.definitions.get(name)
    if node is None or node.type != "operator_definition" or name in seen or depth > MAX_DEPTH:
        return False
    params = _params(node)
    if params is None or len(params) != len(args):
        return False
    body = _body(node)
    if body is None:
        return False
    bound = dict(zip(params, args, strict=True))
    for conjunct in _conjuncts(body):
        call = _call_of(conjunct)
        if call is not None:
            callee, callee_args = call
            substituted = [substitute(a, _wrapped(bound)) if bound else a for a in callee_args]
            if _collect(spec, reads, callee, substituted, out, depth + 1, seen | {name}, steps):
                continue
        changes = reads.changed_by_span(conjunct.start_byte, conjunct.end_byte)
        if changes:  # it takes part in the step (primes, an action it calls): no guard
            steps.append(_step(spec, conjunct, changes))
            continue
        out.append(_guard(spec, reads, conjunct, bound))
    return True


def _step(spec: ParsedSpec, node: Node, changes: set[str]) -> Step:
    return Step(node.start_point.row + 1, _one_line(_text(spec, node)), frozenset(changes))


def _wrapped(bound: dict[str, str]) -> dict[str, str]:
    return {p: f"({a})" for p, a in bound.items()}


def _params(node: Node) -> list[str] | None:
    """Plain parameters before `==` (None when one is an operator parameter, `F(_)`)."""
    out: list[str] = []
    for child in node.children:
        if child.type == "def_eq":
            return out
        if child.type == "operator_declaration":
            return None
        if child.type == "identifier" and child.id != node.children[0].id:
            out.append(text_of(child))
    return out


def _body(node: Node) -> Node | None:
    after = False
    for child in node.children:
        if after and child.is_named and child.type != "comment":
            return child
        after = after or child.type == "def_eq"
    return None


def _conjuncts(node: Node) -> list[Node]:
    """The conjuncts of a conjunction, flattened (bulleted lists, infix /\\, parentheses)."""
    if node.type == "parentheses":
        inner = [c for c in node.named_children if c.type != "comment"]
        return _conjuncts(inner[0]) if len(inner) == 1 else [node]
    if node.type == "conj_list":
        out = []
        for item in node.named_children:
            if item.type != "conj_item":
                continue
            parts = [c for c in item.named_children if c.type not in ("bullet_conj", "comment")]
            for part in parts:
                out += _conjuncts(part)
        return out
    if node.type == "bound_infix_op" and any(c.type == "land" for c in node.children):
        operands = [c for c in node.named_children if c.type not in ("land", "comment")]
        return [part for operand in operands for part in _conjuncts(operand)]
    return [node]


def _call_of(node: Node) -> tuple[str, list[str]] | None:
    """`Op(args)` or a bare `Op` naming a definition (whether it is one is checked later)."""
    if node.type == "identifier_ref":
        return text_of(node), []
    if node.type == "bound_op":
        head = node.named_children[0] if node.named_children else None
        if head is None or head.type != "identifier_ref":
            return None
        args = [text_of(c) for c in node.named_children[1:] if c.type != "comment"]
        return text_of(head), args
    return None


def _text(spec: ParsedSpec, node: Node) -> str:
    """The node's text with its comments blanked (columns kept)."""
    raw = bytearray(spec.source[node.start_byte : node.end_byte])
    for inner in walk(node):
        if inner.type in ("comment", "block_comment"):
            start, end = inner.start_byte - node.start_byte, inner.end_byte - node.start_byte
            raw[start:end] = re.sub(rb"[^\n]", b" ", bytes(raw[start:end]))
    return raw.decode("utf-8", "replace")


def _guard(spec: ParsedSpec, reads: Reads, node: Node, bound: dict[str, str]) -> Guard:
    return Guard(
        line=node.start_point.row + 1,
        column=node.start_point.column,
        text=_text(spec, node),
        params=bound,
        reads=sorted(reads.of_span(node.start_byte, node.end_byte)),
    )


def probe(
    plan: gen.Plan, actions: list[str], per_action: dict[str, list[Guard]]
) -> tuple[gen.Probe, list[Guard]]:
    """Definitions of every guard and the Init conjunct printing a pre-state's first false
    one (0 when all hold), with the guards numbered as printed."""
    numbered: list[Guard] = []
    definitions: list[str] = []
    arms = []
    w, j, b = gen.n(plan, "w"), gen.n(plan, "j"), gen.n(plan, "b")
    for index, action in enumerate(actions, start=1):
        tests = []
        for guard in per_action.get(action, []):
            numbered.append(guard)
            definitions += _guard_definition(plan, len(numbered), guard)
            tests.append(len(numbered))
        chain = "0"
        for number in reversed(tests):
            chain = f"IF ~{gen.n(plan, 'G')}{number} THEN {number} ELSE {chain}"
        arms.append(f"{gen.n(plan, 'A')}[{w}] = {index} -> ({chain})")
    values = [f"{b} = {k} -> <<{', '.join(_shown(g))}>>" for k, g in enumerate(numbered, 1)]
    shown = f"(CASE {' [] '.join(values)} [] OTHER -> <<>>)" if values else "<<>>"
    definitions.append(f"{gen.n(plan, 'Blk')} == CASE " + " [] ".join(arms))
    conjunct = (
        f'LET {b} == {gen.n(plan, "Blk")} IN PrintT(<<"{plan.nonce}b", {w}, {j}, {b}, {shown}>>)'
    )
    return gen.Probe(definitions, conjunct), numbered


def _shown(guard: Guard) -> list[str]:
    """What is printed with a false guard: the variables it reads, then its parameters."""
    return [*guard.reads, *(f"({a})" for a in guard.params.values())]


def _guard_definition(plan: gen.Plan, number: int, guard: Guard) -> list[str]:
    head = f"{gen.n(plan, 'G')}{number} =="
    if guard.params:
        lets = " ".join(f"{p} == {a}" for p, a in guard.params.items())
        head += f" LET {lets} IN"
    # The text at its own column: continuation lines keep their layout.
    return [head, " " * max(guard.column, 2) + guard.text.lstrip(" ")]


def blocking_conjuncts(
    checker: Checker, cases: list[Case], aux: gen.AuxRule
) -> dict[int, BlockingConjunct]:
    """Case index (into `cases`) -> the first false guard at its first failing pre-state, for
    the cases where TLC found one."""
    plan, spec = checker.plan, checker.spec
    w = gen.n(plan, "w")
    bound = {"actor": f"{gen.n(plan, 'Actor')}[{w}]", "msg": f"{gen.n(plan, 'Msg')}[{w}]"}
    per_action = {
        action: guards(spec, gen.adapter_expr(plan, plan.adapter.actions[action], bound))
        for action in sorted({c.action for c in cases})
    }
    if not cases or not any(per_action.values()):
        return {}
    extra, numbered = probe(plan, checker.actions, per_action)
    run = checker.run(gen.build_module(plan, cases, checker.actions, aux, probe=extra))
    if run.status != "ok":
        return {}
    found: dict[int, tuple[int, BlockingConjunct]] = {}
    for item in read_tagged(run.output, plan.nonce, "b"):
        k, j, number, values = item[1], item[2], item[3], item[4]
        if not (1 <= k <= len(cases)) or not (1 <= number <= len(numbered)):
            continue
        if k - 1 in found and found[k - 1][0] <= j:
            continue
        guard = numbered[number - 1]
        shown = to_json_like(values)
        found[k - 1] = (
            j,
            {
                "line": guard.line,
                "text": _one_line(guard.text),
                "values": {
                    v: json_value(x)
                    for v, x in zip([*guard.reads, *guard.params], shown, strict=False)
                },
            },
        )
    return {k: conjunct for k, (_, conjunct) in found.items()}


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_TEXT else flat[: MAX_TEXT - 1] + "…"
