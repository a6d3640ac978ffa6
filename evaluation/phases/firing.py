"""P2's firing rule: an action of Next counts only where a step of it changes what the
contract observes (docs/decisions/0009-p2-counts-observed-changes.md).

TLC's coverage says how many states each action of Next generated, not whether a step did
anything: a spec whose actions only toggle a counter would fire every action. So P2 watches the
steps themselves. Each action TLC reports (a *leaf* of its decomposition of Next: an operator
body, or an inline disjunct with its span) is rewritten in place in the spec text as

    ((<the action, unchanged>) /\\ _Fire<nonce>(k))

where `_Fire<nonce>` is a constant operator the rewrite declares and the cfg replaces by the
watcher's `_Fire<nonce>Impl` (module `_Fire<nonce>Watch`). TLC evaluates it after the action
has assigned every primed variable, so it sees the step: which schema variables (the
contract's state through the adapter's `variables` mappings) differ between the two states,
and when none does, which spec variables. Only what the action may change is compared (the
variables it primes, `evaluation/tla/reads.py`), and nothing more once it changed a schema
variable. What changed is recorded in TLC register k (`TLCSet`) and printed as
`<<"<nonce>", k, {changed}>>` only when something not yet recorded for k appears, so a run
prints a few lines per action however long it is. The conjunct is always TRUE, so the explored
region, the per-action counts and the blame of evaluation errors are those of the spec alone;
the rewrite keeps every line where it was (continuation lines of a rewritten action are
indented by what its first line gained, so layout-sensitive `/\\` and `\\/` lists keep their
alignment).

The registers are set only by the generated `_Fire<nonce>Marks` module, whose text holds nothing
but the nonce and integers (the only module `run_tlc` lets use `TLCSet`); the spec can neither
name the operator nor know the nonce, so it cannot print or forge a mark.

What a schema variable "is" for this rule: its adapter mapping, unless the mapping reads no
spec variable (state the adapter invents never changes; P4 marks it "not modelled"). Without a
contract schema (bare use of the phase) every spec variable is observed. `verdicts` applies
the rule to the marks: hidden state counts where an action that counts reads it.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from tree_sitter import Node

from evaluation.inputs import adapter_text
from evaluation.inputs.adapter_check import identifiers, invented_variables
from evaluation.inputs.contracts import Adapter, Contract
from evaluation.tla import messages as msg
from evaluation.tla.codes import EC, MP
from evaluation.tla.parsed import ParsedSpec
from evaluation.tla.reads import Reads
from evaluation.tla.treesitter import walk

COMMENTS = ("comment", "block_comment")


class CoveredAction(TypedDict):
    """One action of Next in TLC's coverage report (a leaf of its decomposition of Next)."""

    key: str  # `Name@line`: unique even when two disjuncts have the same name
    name: str
    line: int
    col: int  # where the operator's name starts (its definition is found by it)
    inline: tuple[int, int, int, int] | None  # an inline disjunct's span (line, col, line, col)
    distinct: int
    generated: int
    # What the tables call it when TLC names the disjunct after Next (runtime.name_inline).
    label: NotRequired[str]


@dataclass(frozen=True)
class Observer:
    """What the marks compare: the spec's variables and the observed schema variables."""

    nonce: str
    variables: tuple[str, ...]
    observed: tuple[tuple[str, str], ...]  # (schema variable, expression over the spec)

    def name(self, stem: str) -> str:
        """A generated identifier: `_<stem>_<nonce>`, which no spec can know, so no identifier
        of the spec (its definitions, parameters, bound variables) can collide with it."""
        return f"_{stem}_{self.nonce}"

    @property
    def tag(self) -> str:
        return f"_Fire{self.nonce}"

    @property
    def marks_module(self) -> str:
        return f"_Fire{self.nonce}Marks"

    @property
    def watch_module(self) -> str:
        return f"_Fire{self.nonce}Watch"

    def names(self, indexes: set[int]) -> tuple[list[str], list[str]]:
        """(schema variables, spec variables) named by a mark's indexes (0: "it counts")."""
        count = len(self.variables)
        state = [self.variables[i - 1] for i in sorted(indexes) if 1 <= i <= count]
        observed = [self.observed[i - count - 1][0] for i in sorted(indexes) if i > count]
        return observed, state


def observer_for(
    contract: Contract, adapter: Adapter, spec: ParsedSpec, variables: list[str]
) -> Observer:
    schema = list(contract.schema)
    if schema:
        invented = invented_variables(adapter, spec, schema)
        observed = [(v, adapter.variables.get(v, v)) for v in schema if v not in invented]
    else:
        observed = [(v, v) for v in variables]
    return Observer(secrets.token_hex(6), tuple(variables), tuple(observed))


# ----------------------------------------------------------------------------- generated text


# Leaf k -> (schema variable indexes, spec variable indexes) its steps are compared on.
Relevance = dict[int, tuple[list[int], list[int]]]


def modules(
    observer: Observer,
    spec_module: str,
    adapter: Adapter,
    tags: dict[int, CoveredAction],
    spec: ParsedSpec,
    safe: bool,
) -> dict[str, str]:
    """The generated modules a watched run needs besides the spec and the wrapper, which
    EXTENDS `observer.watch_module` (so TLC positions in them are the watcher's own)."""
    return {
        observer.marks_module: marks_module(observer, max(tags, default=0)),
        observer.watch_module: watch_module(
            observer, spec_module, adapter, relevance(observer, spec, tags), safe
        ),
    }


def relevance(observer: Observer, spec: ParsedSpec, tags: dict[int, CoveredAction]) -> Relevance:
    """Leaf k -> (schema variable indexes, spec variable indexes) a step of it may change: the
    spec variables it primes (`reads.py`) and the schema variables whose mappings read one.
    The others cannot change in its steps, so they are not compared."""
    source = Source(spec)
    reads = Reads(source.tree, observer.variables)
    count = len(observer.variables)
    everything = set(observer.variables)
    mapped = [
        everything if "!" in expr else reads.of_names(identifiers(expr))
        for _, expr in observer.observed
    ]
    out: Relevance = {}
    for k, leaf in tags.items():
        span = locate(source, leaf)
        changed = reads.changed_by_span(*span) if span else everything
        observed = [count + j for j, read in enumerate(mapped, 1) if read & changed]
        state = [i for i, v in enumerate(observer.variables, 1) if v in changed]
        out[k] = (observed, state)
    return out


def watch_module(
    observer: Observer,
    spec_module: str,
    adapter: Adapter,
    relevant: Relevance,
    safe: bool = False,
) -> str:
    """`_Fire<nonce>Impl(k)`: what the current step of leaf k changed, marked once.

    Once a step of leaf k changed a schema variable (mark 0: it counts) its later steps are
    not compared at all, so an action costs comparisons only until it first changes what the
    contract observes. Before that, the schema variables it may change are compared, and only
    when none changed the spec variables it may change (the hidden-state rule needs to know
    which). A comparison is `#`, or in `safe` mode the printed values (TLC's `#` raises on
    values of different kinds, such as a variable going from "0" to 1, which TLA+ allows).
    The watcher declares the adapter's model values (the wrapper EXTENDS it).
    """
    t = observer.tag
    prefix = f"{t}h_"
    count = len(observer.variables)
    exprs = {i: v for i, v in enumerate(observer.variables, 1)}
    for j, (_, expr) in enumerate(observer.observed, count + 1):
        exprs[j] = f"({adapter_text.rewrite(expr, prefix)})"

    def differs(e: str) -> str:
        return f"ToString(({e})') # ToString({e})" if safe else f"({e})' # {e}"

    def union(indexes: Iterable[int]) -> str:
        parts = [f"(IF {differs(exprs[i])} THEN {{{i}}} ELSE {{}})" for i in indexes]
        return " \\cup\n    ".join(parts) or "{}"

    o, k = observer.name("o"), observer.name("k")
    lines = [
        f"---- MODULE {observer.watch_module} ----",
        f"EXTENDS {spec_module}, TLC, Naturals, {observer.marks_module}",
        *adapter_text.prelude(adapter, prefix),
    ]
    arms = []
    for leaf, (observed, state) in sorted(relevant.items()):
        lines.append(
            f"{t}Step{leaf} ==\n  LET {o} == {union(observed)}\n"
            f"  IN IF {o} # {{}} THEN {o} \\cup {{0}} ELSE {union(state)}"
        )
        arms.append(f"{k} = {leaf} -> {t}Mark({leaf}, {t}Step{leaf})")
    dispatch = f"CASE {' [] '.join(arms)} [] OTHER -> TRUE" if arms else "TRUE"
    lines += [f"{t}Impl({k}) == 0 \\in TLCGet({k}) \\/ {dispatch}", "===="]
    return "\n".join(lines) + "\n"


def marks_module(observer: Observer, count: int) -> str:
    """The one module that may use TLCSet: integers and the nonce only, nothing submitted."""
    t, k, changed = observer.tag, observer.name("k"), observer.name("changed")
    init = " /\\ ".join(f"TLCSet({i}, {{}})" for i in range(1, count + 1)) or "TRUE"
    return "\n".join(
        [
            f"---- MODULE {observer.marks_module} ----",
            "EXTENDS TLC",
            f"ASSUME {init}",
            f"{t}Mark({k}, {changed}) ==",
            f"  IF {changed} \\subseteq TLCGet({k}) THEN TRUE",
            f"  ELSE /\\ TLCSet({k}, TLCGet({k}) \\cup {changed})",
            f'       /\\ PrintT(<<"{observer.nonce}", {k}, {changed}>>)',
            "====",
            "",
        ]
    )


def failed_in_watcher(messages: list[msg.Message], observer: Observer) -> bool:
    """An evaluation error raised inside the watcher (its positions name its modules)."""
    text = "\n".join(
        m.text for m in messages if m.severity == MP.ERROR or m.code == EC.TLC_NESTED_EXPRESSION
    )
    return f"in {observer.watch_module}" in text or f"in {observer.marks_module}" in text


def cfg_line(observer: Observer) -> str:
    return f"CONSTANT {observer.tag} <- {observer.tag}Impl"


_MARK = r'<<\s*"{nonce}",\s*(\d+),\s*\{{([\d,\s]*)\}}\s*>>'


def read_marks(output: str, observer: Observer) -> dict[int, set[int]]:
    """Leaf k -> every index it was seen to change."""
    marks: dict[int, set[int]] = {}
    for match in re.finditer(_MARK.format(nonce=observer.nonce), output):
        changed = {int(x) for x in match.group(2).replace(",", " ").split()}
        marks.setdefault(int(match.group(1)), set()).update(changed)
    return marks


# ----------------------------------------------------------------------------- the rewrite


class Source:
    """The spec as bytes, with TLC positions (1-based line, column in characters) as offsets;
    the tree is the scoring's one parse of it."""

    def __init__(self, spec: ParsedSpec):
        self.text = spec.text
        self.data = spec.source
        self.lines = self.text.split("\n")
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line.encode("utf-8")) + 1)
        self.tree = spec.tree

    def offset(self, line: int, column: int) -> int | None:
        if not 1 <= line <= len(self.lines):
            return None
        return self.starts[line - 1] + len(self.lines[line - 1][: column - 1].encode("utf-8"))

    def line_of(self, offset: int) -> int:
        """0-based line of a byte offset."""
        return self.data.count(b"\n", 0, offset)


def locate(source: Source, leaf: CoveredAction) -> tuple[int, int] | None:
    """Byte span of a coverage entry's action: its inline span, else its operator's body."""
    if leaf["inline"]:
        l1, c1, l2, c2 = leaf["inline"]
        start, last = source.offset(l1, c1), source.offset(l2, c2)
        if start is None or last is None or last < start:
            return None
        return start, last + len(source.lines[l2 - 1][c2 - 1 : c2].encode("utf-8") or b" ")
    at = source.offset(leaf["line"], leaf["col"])
    for node in walk(source.tree.root_node):
        if node.type != "operator_definition":
            continue
        name = node.child_by_field_name("name")
        if name is None or name.start_byte != at:
            continue
        return _body(node)
    return None


def _body(definition: Node) -> tuple[int, int] | None:
    children = definition.children
    eq = next((i for i, c in enumerate(children) if c.type == "def_eq"), None)
    body = [c for c in children[eq + 1 :] if c.type not in COMMENTS] if eq is not None else []
    if not body:
        return None
    return body[0].start_byte, _code_end(body[-1])


def _code_end(node: Node) -> int:
    """Where a node's code ends: tree-sitter counts comments after it as part of it."""
    code = [c for c in node.children if c.type not in COMMENTS]
    return _code_end(code[-1]) if code else node.end_byte


def declaration_point(source: Source) -> int:
    """After EXTENDS (which must open the module), else after the MODULE header line."""
    module = next((c for c in source.tree.root_node.children if c.type == "module"), None)
    if module is None:
        return 0
    extends = next((c for c in module.children if c.type == "extends"), None)
    if extends is not None:
        return _code_end(extends)
    headers = [c for c in module.children if c.type == "header_line"]
    return headers[1].end_byte if len(headers) > 1 else 0


def instrument(
    spec: ParsedSpec,
    tagged: dict[int, CoveredAction],
    disabled: list[CoveredAction],
    observer: Observer,
) -> tuple[str, set[int]]:
    """The spec with each tagged leaf k wrapped in its mark and each disabled leaf made FALSE
    (without evaluating it); returns the text and the leaves it could locate."""
    source = Source(spec)
    wraps: list[tuple[tuple[int, int], str, str, int | None]] = []
    for k, leaf in tagged.items():
        span = locate(source, leaf)
        if span:
            wraps.append((span, "((", f") /\\ {observer.tag}({k}))", k))
    for leaf in disabled:
        span = locate(source, leaf)
        if span:
            wraps.append((span, "(FALSE /\\ (", "))", None))
    inserts: list[tuple[int, bytes]] = [
        (declaration_point(source), f" CONSTANT {observer.tag}(_)".encode())
    ]
    located: set[int] = set()
    for (start, end), opening, closing, tag in sorted(wraps, key=lambda wrap: wrap[0]):
        if any(s < end and start < e for (s, e), *_ in wraps if (s, e) != (start, end)):
            continue  # overlapping leaves: leave both as they are
        inserts.append((start, opening.encode()))
        shift = _shift(source, inserts, start)
        first, last = source.line_of(start), source.line_of(end)
        inserts += [(source.starts[line], b" " * shift) for line in range(first + 1, last + 1)]
        inserts.append((end, closing.encode()))
        if tag is not None:
            located.add(tag)
    return _apply(source.data, inserts).decode("utf-8"), located


def _shift(source: Source, inserts: list[tuple[int, bytes]], start: int) -> int:
    """How far the text at `start` moved right on its line (so its next lines move as far)."""
    line_start = source.starts[source.line_of(start)]
    return sum(len(text) for at, text in inserts if line_start <= at <= start)


def _apply(data: bytes, inserts: list[tuple[int, bytes]]) -> bytes:
    out: list[bytes] = []
    previous = 0
    for at, text in sorted(inserts, key=lambda item: item[0]):
        out += [data[previous:at], text]
        previous = at
    out.append(data[previous:])
    return b"".join(out)


# ----------------------------------------------------------------------------- the rule


@dataclass
class Verdict:
    observed: list[str]  # schema variables some step changed
    state: list[str]  # spec variables some step changed
    counted: bool
    # For an action that changed only state the contract does not observe: the counted action
    # that reads what it changed, and the variables.
    feeds: str = ""
    through: tuple[str, ...] = ()


def verdicts(
    spec: ParsedSpec,
    tags: dict[int, CoveredAction],
    marks: dict[int, set[int]],
    observer: Observer,
) -> dict[str, Verdict]:
    """Per coverage key. An action counts when a step of it changes a schema variable, or when
    a step changes spec variables that an action which counts reads (primed and UNCHANGED
    mentions are not reads), and so on until nothing more counts: hidden state counts only
    where it feeds what the contract observes. A spec in which nothing observed ever changes
    (a counter toggled in place of the system) therefore has no action that counts."""
    source = Source(spec)
    reads = Reads(source.tree, observer.variables)
    out: dict[str, Verdict] = {}
    for k, leaf in tags.items():
        observed, state = observer.names(marks.get(k, set()))
        out[leaf["key"]] = Verdict(observed, state, counted=bool(observed))
    spans = {leaf["key"]: locate(source, leaf) for leaf in tags.values()}
    read = {key: reads.of_span(*span) if span else set() for key, span in spans.items()}
    changed = True
    while changed:
        changed = False
        for key, verdict in out.items():
            if verdict.counted or not verdict.state:
                continue
            for other, reader in out.items():
                fed = set(verdict.state) & read[other]
                if reader.counted and fed and other != key:
                    verdict.counted, verdict.feeds = True, _label(tags, other)
                    verdict.through = tuple(sorted(fed))
                    changed = True
                    break
    return out


def _label(tags: dict[int, CoveredAction], key: str) -> str:
    names = [leaf["name"] for leaf in tags.values()]
    leaf = next(leaf for leaf in tags.values() if leaf["key"] == key)
    return leaf["name"] if names.count(leaf["name"]) == 1 else key
