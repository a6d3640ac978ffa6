"""Which state variables a part of a spec reads, and which it may change. Syntax only
(tree-sitter), directly or through the definitions it uses.

- reads: named anywhere but primed or under UNCHANGED (`x' = x` reads x, `UNCHANGED x` and
  `x' = 0` do not);
- may change: named under a prime, or read by a definition named under a prime (`vars'`). A
  step changes no other variable: TLA+ has no other way to change one. A call through an
  INSTANCE (`M!A`) cannot be followed, so a part that makes one may change anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tree_sitter import Node, Tree

from evaluation.tla.treesitter import text_of, walk

DEFINITIONS = ("operator_definition", "function_definition")


class Reads:
    def __init__(self, tree: Tree, variables: Iterable[str]) -> None:
        self.root = tree.root_node
        self.variables = set(variables)
        module = next((c for c in self.root.children if c.type == "module"), self.root)
        self.definitions: dict[str, Node] = {}
        for child in module.children:
            node = _unwrap_local(child)
            name = node.child_by_field_name("name") if node.type in DEFINITIONS else None
            if name is not None:
                self.definitions[text_of(name)] = node
        self._memo: dict[str, set[str]] = {}
        self._changes: dict[str, set[str]] = {}

    def of_span(self, start: int, end: int) -> set[str]:
        """Variables read by the text in [start, end) and by the definitions it uses."""
        names = {
            text_of(node)
            for node in _mentions(self.root)
            if start <= node.start_byte and node.end_byte <= end
        }
        return self._close(names)

    def of_names(self, names: set[str]) -> set[str]:
        """Variables read by an expression that mentions `names` (an adapter mapping)."""
        return self._close(set(names))

    def changed_by_span(self, start: int, end: int) -> set[str]:
        """Variables a step of the text in [start, end) may change."""
        nodes = [n for n in walk(self.root) if start <= n.start_byte and n.end_byte <= end]
        tops = [n for n in nodes if n.parent is None or not _inside(n.parent, start, end)]
        out: set[str] = set()
        for node in tops:
            out |= self._changed_by(node)
        return out

    def _changed_by(self, node: Node) -> set[str]:
        out: set[str] = set()
        for kind, current in _parts(node):
            inner = list(walk(current))
            if kind == "instance" or any(n.type == "prefixed_op" for n in inner):
                return set(self.variables)
            names = {text_of(n) for n in inner if n.type == "identifier_ref"}
            if kind == "primed":
                out |= self._close(names)
            else:
                for name in names & set(self.definitions):
                    out |= self._changed_by_definition(name)
        return out

    def _changed_by_definition(self, name: str) -> set[str]:
        if name not in self._changes:
            self._changes[name] = set()
            self._changes[name] = self._changed_by(self.definitions[name])
        return self._changes[name]

    def _of_definition(self, name: str) -> set[str]:
        if name not in self._memo:
            self._memo[name] = set()  # a recursive definition reads what it reads
            names = {text_of(n) for n in _mentions(self.definitions[name])}
            self._memo[name] = self._close(names - {name})
        return self._memo[name]

    def _close(self, names: set[str]) -> set[str]:
        out = names & self.variables
        for name in names & set(self.definitions):
            out |= self._of_definition(name)
        return out


def _unwrap_local(node: Node) -> Node:
    if node.type == "local_definition":
        return next((c for c in node.named_children), node)
    return node


def _mentions(node: Node) -> Iterator[Node]:
    """identifier_ref nodes under `node`, skipping primed and UNCHANGED subtrees."""
    stack = [node]
    while stack:
        current = stack.pop()
        if _is_primed(current) or _is_unchanged(current):
            continue
        if current.type == "identifier_ref":
            yield current
        stack.extend(current.children)


def _inside(node: Node, start: int, end: int) -> bool:
    return start <= node.start_byte and node.end_byte <= end


def _parts(node: Node) -> Iterator[tuple[str, Node]]:
    """("primed", subtree) for each primed subtree, ("mention", identifier_ref) for the names
    used outside primes and UNCHANGED, ("instance", node) for a call through an INSTANCE."""
    stack = [node]
    while stack:
        current = stack.pop()
        if _is_unchanged(current):
            continue
        if _is_primed(current):
            yield "primed", current
        elif current.type == "prefixed_op":
            yield "instance", current
        elif current.type == "identifier_ref":
            yield "mention", current
        else:
            stack.extend(current.children)


def _is_primed(node: Node) -> bool:
    return node.type == "bound_postfix_op" and any(c.type == "prime" for c in node.children)


def _is_unchanged(node: Node) -> bool:
    return node.type == "bound_prefix_op" and any(c.type == "unchanged" for c in node.children)
