"""The adapter translates, it never invents: what an adapter expression may be, checked on the
parse tree (tree-sitter-tlaplus), never by pattern-matching text.

- Every expression: no forbidden construct (`TLCSet` can end TLC early and forge a pass), found
  as a parsed identifier, so quoting or comment tricks cannot hide it.
- Variable and state mappings: no primes, no `UNCHANGED`/`ENABLED` (they describe states).
- Action mappings: only calls of the spec's own actions, as a disjunction, possibly under `\\E`
  (bounded by a set that reads no primed state), with arguments that are state expressions. No
  conjunct, IF, LET or CASE may constrain the step: the step is the spec's. The whole mapping
  may be `FALSE`: the spec has no such action (its windows fail).
- With the spec at hand (`spec_problems`): each called operator is an action of the spec
  (defined by it, reached from its next-state relation, and touching primed state).

`invented_variables` names schema variables whose mapping reads no spec variable: state the
adapter makes up, which no invariant may be credited for (P4 says "not modelled by the spec").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import Node

from evaluation.tla.parsed import ParsedSpec, spec_of
from evaluation.tla.sandbox.precheck import strip_comments
from evaluation.tla.snippets import parse_units
from evaluation.tla.splitter import Listing
from evaluation.tla.treesitter import text_of, walk

if TYPE_CHECKING:  # contracts imports this module to check the adapters it loads
    from evaluation.inputs.contracts import Adapter

# (section, key) -> the line of the adapter YAML it is on, for messages.
KeyLines = dict[tuple[str, str], int]

# Names an adapter expression may use that the generated modules define (with their own
# collision-free names): `ToSpec(v)` maps a contract value to the spec's, `ToContract(v)` back.
VALUE_HELPERS = ("ToSpec", "ToContract")

FORBIDDEN = {
    "TLCSet": 'TLCSet is refused: TLCSet("exit", TRUE) can stop TLC early and forge a pass',
}
# An expression is pasted into generated modules as text: a comment there swallows the text that
# follows it on the line (or to the closing `*)`), and a run of four `=` or `-` ends or splits the
# module, so either would break the run with errors about text the submitter never wrote.
_STRING_LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_TEXT_HAZARDS = (
    (re.compile(r"\\\*|\(\*|\*\)"), "a comment (\\* or (* *)) is refused in an adapter "
     "expression: the expression is pasted into generated modules, where a comment would hide "
     "what follows it; put YAML comments (#) on their own lines instead"),
    (re.compile(r"={4,}|-{4,}"), "a run of four or more = or - is refused in an adapter "
     "expression: in the generated modules it would end (====) or split (----) the module"),
)  # fmt: skip
STATE_KEYWORDS = {"prime": "a prime", "unchanged": "UNCHANGED", "enabled": "ENABLED"}
BOUND_NAMES = ("actor", "msg", "obs", *VALUE_HELPERS)


def _tree(expr: str) -> Node | None:
    units = parse_units(f"AdapterExpr__ == {expr}")
    if not units:
        return None
    return units[0].child_by_field_name("definition")


def identifiers(expr: str) -> set[str]:
    node = _tree(expr)
    if node is None:
        return set()
    return {text_of(n) for n in walk(node) if n.type in ("identifier_ref", "identifier")}


def forbidden(expr: str) -> list[str]:
    return [FORBIDDEN[name] for name in sorted(identifiers(expr) & set(FORBIDDEN))]


def text_problems(expr: str) -> list[str]:
    """What in the expression's text would break the modules it is pasted into (outside its
    string literals, which TLA+ reads as values)."""
    code = _STRING_LITERAL.sub('""', expr)
    return [why for pattern, why in _TEXT_HAZARDS if pattern.search(code)]


def _state_level_problem(node: Node) -> str | None:
    for n in walk(node):
        if n.type in STATE_KEYWORDS:
            return f"it uses {STATE_KEYWORDS[n.type]}, which describes a step, not a state"
    return None


def _action_problem(node: Node) -> str | None:
    """Why `node` is not a disjunction of calls of actions (possibly under \\E), or None."""
    kind = node.type
    if kind == "parentheses":
        return _action_problem(node.named_children[0])
    if kind == "disj_list":
        for item in node.named_children:
            body = [c for c in item.named_children if c.type != "bullet_disj"]
            problem = _action_problem(body[0]) if body else "an empty disjunct"
            if problem:
                return problem
        return None
    if kind == "bound_infix_op":
        return _disjunction_problem(node)
    if kind == "bounded_quantification":
        return _quantified_action_problem(node)
    if kind == "identifier_ref":
        return None
    if kind == "bound_op":
        return _call_problem(node)
    if kind == "prefixed_op":
        return "calls through an INSTANCE (M!A) are not supported; call the spec's action"
    return (
        f"it is a {kind.replace('_', ' ')}, not a call of the spec's actions (an action mapping "
        "is a disjunction of calls, possibly under \\E)"
    )


def _disjunction_problem(node: Node) -> str | None:
    op = node.child_by_field_name("symbol") or node.named_children[1]
    if op.type == "land":
        return (
            "it combines actions with /\\; only \\/ is allowed (an extra conjunct would "
            "constrain the spec's step)"
        )
    if op.type != "lor":
        return (
            f"it is an expression with {text_of(op)!r}, not a call of the spec's "
            "actions (an action mapping is a disjunction of calls, possibly under \\E)"
        )
    return _action_problem(node.named_children[0]) or _action_problem(node.named_children[2])


def _quantified_action_problem(node: Node) -> str | None:
    quantifier = node.named_children[0]
    if quantifier.type != "exists":
        return "only \\E may bind parameters of the spec's actions"
    for bound in node.named_children[1:-1]:
        problem = _state_level_problem(bound)
        if problem:
            return "the set of a \\E " + problem[3:]
    return _action_problem(node.named_children[-1])


def _call_problem(node: Node) -> str | None:
    for arg in node.named_children[1:]:
        problem = _state_level_problem(arg)
        if problem:
            return "an argument of " + text_of(node.named_children[0]) + problem[2:]
    return None


def not_modelled(node: Node) -> bool:
    """The whole mapping is `FALSE`: the spec has no such action, so it never takes a step and
    every window of it fails (mapping it onto another action instead would be an invention)."""
    return node.type == "boolean" and text_of(node) == "FALSE"


def called_operators(expr: str) -> set[str]:
    """The operators an action mapping calls as actions (the heads of its calls)."""
    node = _tree(expr)
    out: set[str] = set()

    def visit(n: Node | None) -> None:
        if n is None:
            return
        if n.type == "parentheses":
            visit(n.named_children[0])
        elif n.type == "disj_list":
            for item in n.named_children:
                for c in item.named_children:
                    if c.type != "bullet_disj":
                        visit(c)
        elif n.type == "bound_infix_op":
            visit(n.named_children[0])
            visit(n.named_children[2])
        elif n.type == "bounded_quantification":
            visit(n.named_children[-1])
        elif n.type == "identifier_ref":
            out.add(text_of(n))
        elif n.type == "bound_op":
            out.add(text_of(n.named_children[0]))

    visit(node)
    return out


def _where(lines: KeyLines, section: str, key: str) -> str:
    line = lines.get((section, key))
    return f"line {line}: {section}.{key}" if line else f"{section}.{key}"


def syntax_problems(adapter: Adapter, lines: KeyLines | None = None) -> list[str]:
    """Problems that need no spec: forbidden constructs, primes in state mappings, action
    mappings that are not disjunctions of calls."""
    lines = lines or {}
    problems = []
    sections = {
        "variables": adapter.variables,
        "actions": adapter.actions,
        "actors": adapter.actors,
        "constants": adapter.constants,
        "values": adapter.values,
        "state": adapter.state,
    }
    for section, entries in sections.items():
        for key, expr in entries.items():
            where = _where(lines, section, key)
            problems += [f"{where}: {reason}" for reason in forbidden(expr)]
            hazards = text_problems(expr)
            problems += [f"{where}: {reason}" for reason in hazards]
            node = None if hazards else _tree(expr)
            if node is None:
                continue
            if section == "actions":
                problem = None if not_modelled(node) else _action_problem(node)
            else:
                problem = _state_level_problem(node)
            if problem:
                problems.append(f"{where}: {problem}")
    return problems


def spec_problems(
    adapter: Adapter, spec: str | ParsedSpec, lines: KeyLines | None = None
) -> list[str]:
    """Action mappings must call actions of this spec, reached from its next-state relation."""
    lines = lines or {}
    listing = spec_of(spec).listing
    actions = spec_actions(listing, adapter.next_name())
    defined = {d.name for d in listing.definitions}
    problems = []
    for name, expr in adapter.actions.items():
        for op in sorted(called_operators(expr)):
            if op in actions:
                continue
            if op in defined:
                why = (
                    f"{op} is not an action of the spec's next-state relation "
                    f"{adapter.next_name()} (an action mapping may only call the spec's actions)"
                )
            else:
                why = f"{op} is not defined by the spec"
            problems.append(f"{_where(lines, 'actions', name)}: {why}")
    return problems


def spec_actions(listing: Listing, next_name: str) -> set[str]:
    """Definitions reached from `next_name` that touch primed state (or are `next_name`)."""
    by_name = {d.name: d for d in listing.definitions}
    stepping = listing.referring_to(
        {
            d.name
            for d in listing.definitions
            if "'" in _code(d.text) or "UNCHANGED" in _code(d.text)
        }
    )
    reached: set[str] = set()
    todo = [next_name]
    while todo:
        name = todo.pop()
        if name in reached or name not in by_name:
            continue
        reached.add(name)
        todo.extend(by_name[name].refs)
    return reached & stepping


def _code(text: str) -> str:
    return strip_comments(text)


def invented_variables(
    adapter: Adapter, spec: str | ParsedSpec, schema: list[str]
) -> dict[str, str]:
    """Schema variable -> its mapping, for mappings that read no spec variable (directly or
    through the spec's definitions)."""
    listing = spec_of(spec).listing
    stateful = listing.referring_to(set(listing.variables))
    out = {}
    for var in schema:
        expr = adapter.variables.get(var, var)
        if not identifiers(expr) & stateful:
            out[var] = expr
    return out
