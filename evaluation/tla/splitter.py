"""List a module's top-level units with tree-sitter-tlaplus (in-process, ~5 ms per spec).

Used to split a spec into definitions for the per-definition syntax check, to find Next's
definition and to pre-check EXTENDS/INSTANCE and forbidden operators. It sees syntax only;
SANY decides semantics. Lines are 1-based and inclusive.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from tree_sitter import Node, Tree

from evaluation.tla import treesitter

DEFINITION_TYPES = ("operator_definition", "function_definition", "module_definition")


@dataclass
class Definition:
    name: str
    kind: str  # operator | function | module (Foo == INSTANCE M)
    params: list[str]
    start_line: int
    end_line: int
    head: str  # text up to `==`, on one line, for stubs
    text: str
    local: bool = False
    has_error: bool = False
    refs: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Assumption:
    """An `ASSUME [Name ==] expr` of the module: the expression as written, and the names it
    refers to (to tell which constants a false assumption reads)."""

    start_line: int
    end_line: int
    text: str
    refs: frozenset[str]


@dataclass
class Listing:
    module: str | None
    extends: list[str]
    instances: list[str]
    constants: list[str]
    variables: list[str]
    recursive: list[str]  # the RECURSIVE declaration texts
    recursive_names: list[str]
    definitions: list[Definition]
    errors: list[tuple[int, int, str]]  # (line, column, what)
    declaration_texts: list[str]  # EXTENDS / CONSTANTS / VARIABLES / INSTANCE unit texts
    identifiers: set[str]
    # Where things are, for messages that point at a line (the upload lint):
    modules: list[str] = field(default_factory=list)  # every MODULE header, nested ones too
    uses: list[tuple[int, str]] = field(default_factory=list)  # (line, EXTENDS/INSTANCE target)
    first_lines: dict[str, int] = field(default_factory=dict)  # identifier -> first line used
    assumptions: list[Assumption] = field(default_factory=list)

    def referring_to(self, names: set[str]) -> set[str]:
        """`names` plus every definition that refers to one of them, directly or through others."""
        closure = set(names)
        changed = True
        while changed:
            changed = False
            for definition in self.definitions:
                if definition.name not in closure and definition.refs & closure:
                    closure.add(definition.name)
                    changed = True
        return closure

    def reached_from(self, names: set[str]) -> set[str]:
        """`names` plus every name the definitions among them refer to, directly or through
        others (what an expression using `names` reads)."""
        by_name = {d.name: d for d in self.definitions}
        reached, todo = set(), list(names)
        while todo:
            name = todo.pop()
            if name not in reached:
                reached.add(name)
                todo.extend(by_name[name].refs if name in by_name else ())
        return reached


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _end_line(node: Node) -> int:
    # A node that ends at column 0 ends on the previous line.
    end = node.end_point
    return end.row if end.column == 0 and end.row > node.start_point.row else end.row + 1


def _errors(root: Node) -> list[tuple[int, int, str]]:
    found = []
    for node in treesitter.walk(root):
        if node.type == "ERROR":
            found.append((node.start_point.row + 1, node.start_point.column + 1, "syntax error"))
        elif node.is_missing:
            found.append(
                (node.start_point.row + 1, node.start_point.column + 1, f"missing {node.type}")
            )
    return found


def _definition(node: Node, source: bytes, local: bool) -> Definition | None:
    name_node = node.child_by_field_name("name")
    if name_node is None:
        named = [c for c in node.children if c.type == "identifier"]
        name_node = named[0] if named else None
    if name_node is None:
        return None
    kind = node.type.split("_")[0]
    def_eq = next((c for c in node.children if c.type == "def_eq"), None)
    params: list[str] = []
    head_end = def_eq.start_byte if def_eq is not None else node.end_byte
    for child in node.children:
        if def_eq is not None and child.start_byte >= def_eq.start_byte:
            break
        if child.is_named and child.id != name_node.id and child.type != "infix_op_symbol":
            params.append(_text(child, source))
    infix = next(
        (
            c
            for c in node.children
            if c.type in ("infix_op_symbol", "prefix_op_symbol", "postfix_op_symbol")
        ),
        None,
    )
    name = _text(infix, source) if infix is not None else _text(name_node, source)
    head = " ".join(source[node.start_byte : head_end].decode("utf-8", "replace").split())
    refs = {_text(n, source) for n in treesitter.walk(node) if n.type == "identifier_ref"}
    return Definition(
        name=name,
        kind=kind,
        params=params,
        start_line=node.start_point.row + 1,
        end_line=_end_line(node),
        head=head,
        text=_text(node, source),
        local=local,
        has_error=node.has_error,
        refs=refs,
    )


def _names(node: Node, source: bytes) -> list[str]:
    out = []
    for child in node.children:
        if child.type in ("identifier", "identifier_ref"):
            out.append(_text(child, source))
        elif child.type == "operator_declaration":
            ident = next((c for c in child.children if c.type == "identifier"), None)
            if ident is not None:
                out.append(_text(ident, source))
    return out


def list_module(text: str) -> Listing:
    """The module's top-level units, from a new parse of `text`."""
    return listing_from_tree(text, treesitter.parse(text.encode("utf-8")))


def listing_from_tree(text: str, tree: Tree) -> Listing:
    """The module's top-level units, from tree-sitter's `tree` of `text` (parsed once, read by
    every phase: `evaluation.tla.parsed`)."""
    source = text.encode("utf-8")
    root = tree.root_node
    module = next((c for c in root.children if c.type == "module"), root)
    listing = Listing(None, [], [], [], [], [], [], [], _errors(root), [], set())
    header = next((c for c in module.children if c.type == "identifier"), None)
    listing.module = _text(header, source) if header is not None else None
    _locate(root, source, listing)
    _collect_units(module.children, source, listing)
    if root.has_error:
        listing.definitions = _recover(listing.definitions, text)
    listing.definitions.sort(key=lambda d: d.start_line)
    return listing


def _locate(root: Node, source: bytes, listing: Listing) -> None:
    """Fill the identifiers, the module headers and the lines of EXTENDS/INSTANCE targets."""
    for node in treesitter.walk(root):
        if node.type in ("identifier_ref", "identifier"):
            listing.first_lines.setdefault(_text(node, source), node.start_point.row + 1)
        elif node.type == "module":
            header = next((c for c in node.children if c.type == "identifier"), None)
            if header is not None:
                listing.modules.append(_text(header, source))
        elif node.type in ("extends", "instance"):
            targets = [c for c in node.children if c.type == "identifier_ref"]
            for target in targets if node.type == "extends" else targets[:1]:
                listing.uses.append((target.start_point.row + 1, _text(target, source)))
    listing.identifiers = set(listing.first_lines)
    listing.uses.sort()


# ----------------------------------------------------------------------------- recovery
#
# tree-sitter's error recovery can swallow, rename or merge the definitions around a syntax
# error (an unclosed `(` can turn `StartLock(t) ==` into a definition named `t` and hide the
# next three). In a module that has errors, the definitions tree-sitter parsed cleanly are kept;
# everywhere else, a line that starts at column 0 with `Name ==`, `Name(p, q) ==` or
# `Name[x \in S] ==` (outside comments and strings) starts a definition, which runs to the next
# such line or top-level keyword. Each recovered piece is parsed again on its own to tell the
# broken one from the innocent ones it swallowed.

_DEF_LINE = re.compile(
    r"^(LOCAL\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(\(([^()]*)\)|\[[^\]]*\])?\s*==(?!=)"
)
_UNIT_LINE = re.compile(
    r"^(CONSTANTS?|VARIABLES?|EXTENDS|INSTANCE|ASSUME|ASSUMPTION|AXIOM|THEOREM|LEMMA"
    r"|COROLLARY|PROPOSITION|RECURSIVE|----|====)\b|^-{4,}|^={4,}"
)


def _blank_comments(text: str) -> str:
    """`text` with comments and strings replaced by spaces, newlines kept (nested `(* *)`)."""
    out = list(text)
    i, depth, n = 0, 0, len(text)
    while i < n:
        two = text[i : i + 2]
        if depth:
            if two == "(*":
                depth += 1
            elif two == "*)":
                depth -= 1
            if two in ("(*", "*)"):
                out[i] = out[i + 1] = " "
                i += 2
                continue
            out[i] = out[i] if text[i] == "\n" else " "
            i += 1
        elif two == "(*":
            depth, out[i], out[i + 1] = 1, " ", " "
            i += 2
        elif two == "\\*":
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _recover(definitions: list[Definition], text: str) -> list[Definition]:
    lines = _blank_comments(text).split("\n")
    trusted = [d for d in definitions if not d.has_error]
    covered = {line for d in trusted for line in range(d.start_line, d.end_line + 1)}
    body_end = _body_end(lines)
    starts = {
        i + 1: m
        for i, line in enumerate(lines[:body_end])
        if (i + 1) not in covered and (m := _DEF_LINE.match(line))
    }
    stops = set(starts) | {d.start_line for d in trusted} | {body_end} | _unit_lines(lines)
    source_lines = text.split("\n")
    recovered = [_piece(line, m, stops, lines, source_lines) for line, m in starts.items()]
    claimed = {line for d in recovered for line in range(d.start_line, d.end_line + 1)}
    leftovers = [d for d in definitions if d.has_error and d.start_line not in claimed | covered]
    for definition in leftovers:
        _clip(definition, stops, lines)
    return trusted + recovered + leftovers


def _body_end(lines: list[str]) -> int:
    """The line of the module's closing `====` (1-based), or the last line."""
    closing = (i + 1 for i, line in enumerate(lines) if i > 0 and re.match(r"^={4,}", line))
    return next(closing, len(lines))


def _unit_lines(lines: list[str]) -> set[int]:
    return {i + 1 for i, line in enumerate(lines) if _UNIT_LINE.match(line)}


def _last_line(start: int, stops: set[int], blanked: list[str]) -> int:
    end = min((s for s in stops if s > start), default=len(blanked) + 1) - 1
    while end > start and not blanked[end - 1].strip():
        end -= 1
    return end


def _piece(
    start: int, match: re.Match[str], stops: set[int], blanked: list[str], source_lines: list[str]
) -> Definition:
    end = _last_line(start, stops, blanked)
    text = "\n".join(source_lines[start - 1 : end]).rstrip()
    probe = treesitter.parse(f"---- MODULE P ----\n{text}\n====\n".encode()).root_node
    refs = {_text(n, text.encode()) for n in treesitter.walk(probe) if n.type == "identifier_ref"}
    params = [p.strip() for p in (match.group(4) or "").split(",") if p.strip()]
    return Definition(
        name=match.group(2),
        kind="function" if (match.group(3) or "").startswith("[") else "operator",
        params=params,
        start_line=start,
        end_line=end,
        head=" ".join(match.group(0)[:-2].replace("LOCAL", "", 1).split()),
        text=text,
        local=bool(match.group(1)),
        has_error=probe.has_error,
        refs=refs - {match.group(2)},
    )


def _clip(definition: Definition, stops: set[int], blanked: list[str]) -> None:
    end = min(definition.end_line, _last_line(definition.start_line, stops, blanked))
    if end < definition.end_line:
        keep = end - definition.start_line + 1
        definition.text = "\n".join(definition.text.split("\n")[:keep]).rstrip()
        definition.end_line = end


UNIT_TYPES = DEFINITION_TYPES + (
    "local_definition",
    "extends",
    "instance",
    "constant_declaration",
    "variable_declaration",
    "recursive_declaration",
    "assumption",
    "theorem",
    "double_line",
    "single_line",
)


def _collect_units(children: Sequence[Node], source: bytes, listing: Listing) -> None:
    """Collect units; an `identifier ... ==` run that tree-sitter could not parse (inside or
    beside an ERROR node) still counts as a definition, marked as broken."""
    children = list(children)
    for index, node in enumerate(children):
        if node.type == "ERROR":
            _collect_units(node.children, source, listing)
        elif node.type == "identifier" and _starts_broken_definition(children, index):
            listing.definitions.append(_broken(children, index, source))
        else:
            _collect(node, source, listing, local=False)


def _starts_broken_definition(children: list[Node], index: int) -> bool:
    if index > 0 and children[index - 1].type == "MODULE":
        return False
    for follower in children[index + 1 : index + 8]:
        if follower.type == "def_eq":
            return True
        if follower.type in UNIT_TYPES or follower.type == "identifier":
            return False
    return False


def _broken(children: list[Node], index: int, source: bytes) -> Definition:
    start = children[index]
    end = start
    for follower in children[index + 1 :]:
        if follower.type in UNIT_TYPES or (
            follower.type == "identifier" and follower.start_point.column == 0
        ):
            break
        end = follower
    name = _text(start, source)
    text = source[start.start_byte : end.end_byte].decode("utf-8", "replace")
    return Definition(
        name=name,
        kind="operator",
        params=[],
        start_line=start.start_point.row + 1,
        end_line=_end_line(end),
        head=name,
        text=text,
        has_error=True,
    )


# Declaration units whose text is kept as written, and the Listing field their names go to.
DECLARED_NAMES = {
    "extends": "extends",
    "instance": "instances",
    "constant_declaration": "constants",
    "variable_declaration": "variables",
}


def _collect(node: Node, source: bytes, listing: Listing, local: bool) -> None:
    kind = node.type
    if kind == "local_definition":
        for child in node.children:
            if child.is_named:
                _collect(child, source, listing, local=True)
    elif kind in DEFINITION_TYPES:
        definition = _definition(node, source, local)
        if definition is not None:
            listing.definitions.append(definition)
            if kind == "module_definition":
                listing.instances.extend(_instance_targets(node, source))
    elif kind in DECLARED_NAMES:
        names = _instance_targets(node, source) if kind == "instance" else _names(node, source)
        getattr(listing, DECLARED_NAMES[kind]).extend(names)
        listing.declaration_texts.append(_text(node, source))
    elif kind == "assumption":
        expression = [c for c in node.children if c.is_named][-1:]
        for child in expression:
            listing.assumptions.append(
                Assumption(
                    start_line=node.start_point.row + 1,
                    end_line=_end_line(node),
                    text=_text(child, source),
                    refs=frozenset(
                        _text(n, source)
                        for n in treesitter.walk(child)
                        if n.type == "identifier_ref"
                    ),
                )
            )
    elif kind == "recursive_declaration":
        listing.recursive.append(_text(node, source))
        listing.recursive_names.extend(_names(node, source))


def _instance_targets(node: Node, source: bytes) -> list[str]:
    return [
        _text(c, source)
        for n in treesitter.walk(node)
        if n.type == "instance"
        for c in n.children
        if c.type == "identifier_ref"
    ][:1] or []


def module_header(text: str) -> str | None:
    return list_module(text).module
