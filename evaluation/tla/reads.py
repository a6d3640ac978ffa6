"""Which state variables a part of a spec reads: named anywhere but primed or under UNCHANGED,
directly or through the definitions it uses. Syntax only (tree-sitter), so a read is a
mention: `x' = x` reads x, `UNCHANGED x` and `x' = 0` do not."""

from __future__ import annotations

DEFINITIONS = ("operator_definition", "function_definition")


class Reads:
    def __init__(self, tree, variables):
        self.root = tree.root_node
        self.variables = set(variables)
        module = next((c for c in self.root.children if c.type == "module"), self.root)
        self.definitions = {}
        for node in module.children:
            node = _unwrap_local(node)
            name = node.child_by_field_name("name") if node.type in DEFINITIONS else None
            if name is not None:
                self.definitions[name.text.decode()] = node
        self._memo: dict[str, set[str]] = {}

    def of_span(self, start: int, end: int) -> set[str]:
        """Variables read by the text in [start, end) and by the definitions it uses."""
        names = {
            node.text.decode()
            for node in _mentions(self.root)
            if start <= node.start_byte and node.end_byte <= end
        }
        return self._close(names)

    def _of_definition(self, name: str) -> set[str]:
        if name not in self._memo:
            self._memo[name] = set()  # a recursive definition reads what it reads
            names = {n.text.decode() for n in _mentions(self.definitions[name])}
            self._memo[name] = self._close(names - {name})
        return self._memo[name]

    def _close(self, names: set[str]) -> set[str]:
        out = names & self.variables
        for name in names & set(self.definitions):
            out |= self._of_definition(name)
        return out


def _unwrap_local(node):
    if node.type == "local_definition":
        return next((c for c in node.named_children), node)
    return node


def _mentions(node):
    """identifier_ref nodes under `node`, skipping primed and UNCHANGED subtrees."""
    stack = [node]
    while stack:
        current = stack.pop()
        if _is_primed(current) or _is_unchanged(current):
            continue
        if current.type == "identifier_ref":
            yield current
        stack.extend(current.children)


def _is_primed(node) -> bool:
    return node.type == "bound_postfix_op" and any(c.type == "prime" for c in node.children)


def _is_unchanged(node) -> bool:
    return node.type == "bound_prefix_op" and any(c.type == "unchanged" for c in node.children)
