"""A spec's shape: its syntax tree with the names taken out, for finding near-duplicates
(docs/decisions/0019-near-duplicates.md).

Two specs that differ only in their identifiers, the order of their definitions or of a
conjunction's items, their comments, layout or string values have the same shape. From the
tree-sitter parse (`treesitter.parse`), every node gets a hash of its kind and its children's
hashes, where

- an identifier the module declares (a variable, constant, definition) counts only as its kind
  (`V`, `C`, `D`), a parameter or bound variable as `L`; a name the module does not declare (the
  standard modules' `Cardinality`, `Len`, ...) keeps its spelling;
- comments are left out; a string is only "a string" (tree-sitter keeps no string text in its
  tree), a number keeps its digits;
- the items of a `/\\` or `\\/` list, and the units of the module, are hashed in sorted order.

`Shape.digest` hashes the module's top-level units in sorted order (an exact fingerprint);
`Shape.sketch` is the bottom-k sketch (the SKETCH smallest) of the distinct hashes of every
subtree of at least MIN_NODES nodes. `similarity` estimates the Jaccard index of two specs'
subtree sets from their sketches; it is exact while both sets have at most SKETCH elements.
Pure functions, iterative (a deeply nested spec costs no Python recursion).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from tree_sitter import Node

from evaluation.tla.treesitter import parse, text_of, walk

# A subtree smaller than this is an idiom every spec shares (`x' = x`, `[f EXCEPT ![i] = v]`),
# not evidence of copying.
MIN_NODES = 8
SKETCH = 1024
# At or above this, a run is flagged as a near-duplicate. Measured
# (docs/decisions/0019-near-duplicates.md): a reference and a mutant of it (one rule changed) are
# 0.74-1.0 alike; no two different specs of the references, the fidelity corpus and tests/attacks
# are more than 0.61 alike.
NEAR_DUPLICATE = 0.7
COMMENTS = frozenset({"comment", "block_comment", "block_comment_text", "extramodular_text"})
UNORDERED = frozenset({"module", "conj_list", "disj_list"})
DECLARING = {
    "variable_declaration": "V",
    "constant_declaration": "C",
    "operator_definition": "D",
    "function_definition": "D",
    "module_definition": "D",
    "recursive_declaration": "D",
}
NAMES = frozenset({"identifier", "identifier_ref"})


@dataclass(frozen=True)
class Shape:
    digest: str
    sketch: tuple[str, ...]


def spec_shape(text: str) -> Shape:
    root = parse(text.encode("utf-8")).root_node
    module = next((c for c in root.children if c.type == "module"), root)
    kinds = _declared(module)
    # Undeclared at the top: a parameter or bound variable when some `identifier` node declares
    # it (TLA+ forbids rebinding a name in scope, so no standard module's name is one).
    local = {text_of(n) for n in walk(module) if n.type == "identifier"} - set(kinds)
    names = {**dict.fromkeys(local, "L"), **kinds}
    hashes, sizes = _hash_tree(module, names)
    units = sorted(
        hashes[c.id] for c in module.children if c.type not in COMMENTS and c.type in _UNITS
    )
    digest = hashlib.sha256("\n".join(units).encode()).hexdigest()
    subtrees = {h for key, h in hashes.items() if sizes[key] >= MIN_NODES}
    return Shape(digest, tuple(sorted(subtrees)[:SKETCH]))


def similarity(a: tuple[str, ...] | list[str], b: tuple[str, ...] | list[str]) -> float:
    """The Jaccard index of two subtree sets, estimated from their bottom-k sketches: among the
    SKETCH smallest hashes of the union, the share found in both."""
    first, second = set(a), set(b)
    union = sorted(first | second)[:SKETCH]
    if not union:
        return 0.0
    return sum(1 for h in union if h in first and h in second) / len(union)


# Top-level units that make up the exact digest (the header and module name are left out).
_UNITS = frozenset({*DECLARING, "extends", "assume", "theorem", "instance", "operator_declaration"})


def _declared(module: Node) -> dict[str, str]:
    """Name -> `V`, `C` or `D` for every name the module declares at its top level."""
    kinds: dict[str, str] = {}
    for unit in module.children:
        kind = DECLARING.get(unit.type)
        if kind is None:
            continue
        name = unit.child_by_field_name("name")
        if name is not None:
            kinds[text_of(name)] = kind
            continue
        for child in unit.children:
            target = child.child_by_field_name("name") if child.type != "identifier" else child
            if target is not None and target.type == "identifier":
                kinds[text_of(target)] = kind
    return kinds


def _hash_tree(module: Node, kinds: dict[str, str]) -> tuple[dict[int, str], dict[int, int]]:
    """Every node's hash and size (nodes in its subtree), bottom-up without recursion; `kinds`
    gives what a name counts as (`V`, `C`, `D`, `L`; a name not in it is spelled out)."""
    hashes: dict[int, str] = {}
    sizes: dict[int, int] = {}
    stack: list[tuple[Node, bool]] = [(module, False)]
    while stack:
        node, ready = stack.pop()
        children = [c for c in node.children if c.type not in COMMENTS]
        if not ready:
            stack.append((node, True))
            stack.extend((c, False) for c in children)
            continue
        parts = [hashes[c.id] for c in children]
        if node.type in UNORDERED:
            parts.sort()
        hashes[node.id] = _digest(node.type, _leaf(node, kinds), parts)
        sizes[node.id] = 1 + sum(sizes[c.id] for c in children)
    return hashes, sizes


def _leaf(node: Node, kinds: dict[str, str]) -> str:
    if node.type in NAMES:
        name = text_of(node)
        return kinds.get(name, name)
    if node.child_count == 0 and node.is_named:
        return text_of(node)  # numbers and the like; anonymous tokens are their type
    return ""


def _digest(kind: str, leaf: str, parts: list[str]) -> str:
    text = f"{kind}\x1f{leaf}\x1f" + "\x1e".join(parts)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
