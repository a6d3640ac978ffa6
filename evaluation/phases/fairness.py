"""The fairness a spec declares, taken from its `Spec` and made safe to check liveness under.

P4 checks liveness under `Init /\\ [][Next]_vars /\\ <the spec's fairness>`, never under the
spec's own `Spec`: a `Spec` may say anything (`Init /\\ [][FALSE]_vars` has no behaviour that
moves, so every property "holds"). Only the fairness conjuncts of `Spec` are kept:

- a conjunct is fairness when it is built from `WF_v(A)` / `SF_v(A)` with `/\\` and `\\A`,
  possibly through references to parameterless definitions of the spec; anything else (`Init`,
  `[][Next]_v`, `[]P`, `<>Q`) is dropped and listed with the reason;
- every `WF_v(A)` / `SF_v(A)` becomes `WF_v((A) /\\ (Next))`: fairness on a sub-action of `Next`
  keeps the spec machine closed (Lamport, Specifying Systems §8.9.2), so a fairness condition
  can never rule out the behaviours that would violate a property (`WF_v(x' = 42)` for an `x`
  that `Next` never sets would otherwise leave no fair behaviour at all).

Each kept conjunct is returned as the text of a definition body that keeps its columns (TLA+
bullet lists are column-sensitive), to be emitted in a module that EXTENDS the spec.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from evaluation.tla.parsed import ParsedSpec, spec_of

MAX_DEPTH = 8
# (start byte, end byte, replacement text) in the spec's source.
Edit = tuple[int, int, str]
# A node whose text, with its edits applied, is one fairness conjunct.
Piece = tuple[Node, list[Edit]]


@dataclass
class Fairness:
    conjuncts: list[str] = field(default_factory=list)  # definition bodies (column-preserving)
    dropped: list[str] = field(default_factory=list)  # "<text>: why"


def spec_fairness(
    spec: str | ParsedSpec,
    init_name: str = "Init",
    next_name: str = "Next",
    spec_name: str = "Spec",
) -> Fairness:
    parsed = spec_of(spec)
    source = parsed.source
    definitions = _definitions(parsed.tree.root_node, source)
    found = Fairness()
    body = definitions.get(spec_name)
    if body is None:
        return found
    for node in _conjuncts(body):
        edits = _fair_edits(node, source, definitions, next_name, 0)
        text = _text(node, source)
        if edits is None:
            if not _is_behaviour(node, source, init_name):
                found.dropped.append(f"{_one_line(text)}: not a WF_/SF_ fairness condition")
            continue
        found.conjuncts.extend(_render(piece, source, piece_edits) for piece, piece_edits in edits)
    return found


def _definitions(root: Node, source: bytes) -> dict[str, Node]:
    """Parameterless top-level definitions: name -> body node."""
    out = {}
    module = root.named_children[0] if root.named_children else None
    for unit in module.named_children if module is not None else []:
        if unit.type != "operator_definition":
            continue
        name = unit.child_by_field_name("name")
        if name is None or any(c.type == "identifier" for c in unit.named_children[1:]):
            continue  # has parameters (they appear as identifiers before `==`)
        out[_text(name, source)] = unit.named_children[-1]
    return out


def _conjuncts(node: Node) -> list[Node]:
    node = _strip_parens(node)
    if node.type == "bound_infix_op" and _is_and(node):
        return _conjuncts(node.named_children[0]) + _conjuncts(node.named_children[-1])
    if node.type == "conj_list":
        return [part for item in node.named_children for part in _conjuncts(item)]
    if node.type == "conj_item":
        return _conjuncts(node.named_children[-1])
    return [node]


def _fair_edits(
    node: Node, source: bytes, definitions: dict[str, Node], next_name: str, depth: int
) -> list[Piece] | None:
    """[(node, [(start, end, replacement)])] whose conjunction is `node` with every fairness
    action guarded by Next, or None when `node` is not a fairness condition."""
    node = _strip_parens(node)
    if depth > MAX_DEPTH:
        return None
    if node.type == "fairness":
        action = node.named_children[-1]
        text = _text(action, source)
        if text.strip() == next_name:
            return [(node, [])]  # WF_v(Next) is already on a sub-action of Next
        # The spec's action first: TLC then generates its few successors and checks Next on
        # each, instead of generating all of Next's and evaluating the action on every one.
        guarded = f"({text}) /\\ ({next_name})"
        return [(node, [(action.start_byte, action.end_byte, guarded)])]
    if node.type == "bounded_quantification" and node.named_children[0].type == "forall":
        body = node.named_children[-1]
        inner = _fair_edits(body, source, definitions, next_name, depth + 1)
        inside = inner is not None and all(
            body.start_byte <= piece.start_byte and piece.end_byte <= body.end_byte
            for piece, _edits in inner
        )
        if inner is None or not inside:
            return None  # a definition expanded under \A would lose the bound variable
        return [(node, [edit for _piece, edits in inner for edit in edits])]
    if node.type in ("bound_infix_op", "conj_list", "conj_item") and _conjuncts(node) != [node]:
        parts = [
            _fair_edits(part, source, definitions, next_name, depth + 1)
            for part in _conjuncts(node)
        ]
        pieces = [part for part in parts if part is not None]
        if len(pieces) < len(parts):
            return None
        return [piece for part in pieces for piece in part]
    if node.type == "identifier_ref":
        named = definitions.get(_text(node, source))
        if named is None:
            return None
        return _fair_edits(named, source, definitions, next_name, depth + 1)
    return None


def _render(node: Node, source: bytes, edits: list[Edit]) -> str:
    """The node's text with edits applied, indented to its original column."""
    start, end = node.start_byte, node.end_byte
    chunk = source[start:end]
    for begin, stop, replacement in sorted(edits, reverse=True):
        chunk = chunk[: begin - start] + replacement.encode() + chunk[stop - start :]
    return " " * max(1, node.start_point[1]) + chunk.decode()


def _is_behaviour(node: Node, source: bytes, init_name: str) -> bool:
    """`Init` or `[][...]_v`: replaced by the scorer's own, so not worth reporting as dropped."""
    if node.type == "identifier_ref":
        return _text(node, source) == init_name
    return (
        node.type == "bound_prefix_op"
        and node.named_children[0].type == "always"
        and node.named_children[-1].type == "step_expr_or_stutter"
    )


def _strip_parens(node: Node) -> Node:
    while node.type == "parentheses" and node.named_children:
        node = node.named_children[0]
    return node


def _is_and(node: Node) -> bool:
    return any(c.type == "land" for c in node.children)


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode()


def _one_line(text: str) -> str:
    return " ".join(text.split())[:120]
