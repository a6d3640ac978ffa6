"""TLA+ snippets (contract definitions, adapter expressions) parsed with tree-sitter-tlaplus: it
parses without resolving names, which is what a contract or an adapter needs (names are resolved
later by SANY against a real spec)."""

from __future__ import annotations

import warnings
from functools import lru_cache

import tree_sitter
import tree_sitter_tlaplus


@lru_cache(maxsize=1)
def _parser():
    # tree-sitter-tlaplus 1.5 hands over its grammar as an int pointer, which tree-sitter 0.26
    # still accepts but warns about.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        language = tree_sitter.Language(tree_sitter_tlaplus.language())
    return tree_sitter.Parser(language)


def parse_units(text: str):
    """Parse `text` as the body of a module; returns the unit nodes, or None on a syntax error."""
    source = f"---- MODULE Snippet ----\n{text}\n====\n".encode()
    tree = _parser().parse(source)
    if tree.root_node.has_error:
        return None
    module = tree.root_node.children[0]
    skip = ("header_line", "identifier", "double_line", "single_line", "comment", "block_comment")
    return [c for c in module.named_children if c.type not in skip]


def definition_name(text: str) -> str | None:
    """The name a single `Name == expr` definition defines, or None if it is not exactly that."""
    units = parse_units(text)
    if not units or len(units) != 1 or units[0].type != "operator_definition":
        return None
    name = units[0].child_by_field_name("name")
    return name.text.decode() if name is not None else None


def expression_parses(expr: str) -> bool:
    if not expr.strip():
        return False
    return definition_name(f"AdapterExpr__ == {expr}") == "AdapterExpr__"


def syntax_tree(source: bytes):
    """The tree-sitter parse of a whole module's bytes (offsets are byte offsets)."""
    return _parser().parse(source)
