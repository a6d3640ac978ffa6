"""The project's one tree-sitter-tlaplus parser: every parse of TLA+ text goes through `parse`.

One entry point, so that a scoring's parses of the spec can be counted (a scoring parses the
spec once, `evaluation.tla.parsed`) and the parser's setup is written once.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from functools import lru_cache

import tree_sitter
import tree_sitter_tlaplus
from tree_sitter import Node


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    # tree-sitter-tlaplus 1.5 hands over its grammar as an int pointer, which tree-sitter 0.26
    # still accepts but warns about.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        language = tree_sitter.Language(tree_sitter_tlaplus.language())
    return tree_sitter.Parser(language)


def parse(source: bytes) -> tree_sitter.Tree:
    """tree-sitter's syntax tree of `source` (UTF-8 TLA+ text); it never raises on bad syntax,
    the tree marks it (`has_error`, ERROR nodes)."""
    return _parser().parse(source)


def text_of(node: Node) -> str:
    """The source text a node spans (a node of a tree parsed from bytes always has it)."""
    return (node.text or b"").decode()


def walk(node: Node) -> Iterator[Node]:
    """`node` and every node below it, in document order (iteratively: a deeply nested
    expression must not exhaust Python's recursion limit)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))
