"""Read a spec's standard Unicode symbols as their ASCII spelling, for the pinned SANY/TLC.

Unicode is part of TLA+ as the current tools define it, but the pinned tla2tools (2.15) reads
only ASCII. The symbol table is the TLA+ Foundation's standard: `unicode/tla-unicode.csv` in
github.com/tlaplus/rfcs (formerly tlaplus/tlaplus-standard); each Unicode symbol becomes the
first ASCII spelling that table lists for it. Nothing else is rewritten: symbols inside string
literals, `\\*` line comments and nested `(* *)` block comments stay as written, and any other
non-ASCII character is left in place for SANY to report as usual.

Line numbers never change (no newline is added or removed), so every SANY/TLC message points at
the submitter's own line. Columns after a rewritten symbol move right (`≜` is one column, `==`
two). Because conjunction/disjunction lists are aligned by column, a list whose bullets would no
longer line up (`Init ≜ ∧ x = 0` above `       ∧ y = 0`) is re-aligned: the lines of its items
get spaces so that every bullet keeps the column of the list's rightmost one and every item's
continuation lines keep their offset from their bullet. The lists come from tree-sitter-tlaplus,
which reads the Unicode text itself; it runs only when a symbol was rewritten, so an ASCII spec
is returned unchanged without being parsed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

from evaluation.details import UnicodeSummary
from evaluation.tla import treesitter

TABLE_SOURCE = "tlaplus/rfcs unicode/tla-unicode.csv (the TLA+ Foundation's Unicode table)"

# Unicode symbol -> the first ASCII spelling of its row in the standard table. `⟩_` (a row of
# its own there) needs none: `⟩` then `_` gives `>>_`. `∘` is U+2218 (the table's id has a typo).
TABLE: dict[str, str] = {
    "≜": "==",
    "∈": "\\in",
    "∉": "\\notin",
    "←": "<-",
    "∀": "\\A",
    "∃": "\\E",
    "↦": "|->",
    "→": "->",
    "⟨": "<<",
    "⟩": ">>",
    "□": "[]",
    "∷": "::",
    "¬": "~",
    "⋄": "<>",
    "⇒": "=>",
    "⇸": "-+->",
    "≡": "\\equiv",
    "⇔": "<=>",
    "↝": "~>",
    "∧": "/\\",
    "∨": "\\/",
    "≔": ":=",
    "⩴": "::=",
    "≠": "/=",
    "≤": "<=",
    "≥": ">=",
    "≈": "\\approx",
    "⊢": "|-",
    "⊨": "|=",
    "⊣": "-|",
    "⫤": "=|",
    "≍": "\\asymp",
    "≅": "\\cong",
    "≐": "\\doteq",
    "≫": "\\gg",
    "≪": "\\ll",
    "≺": "\\prec",
    "≻": "\\succ",
    "⪯": "\\preceq",
    "⪰": "\\succeq",
    "∝": "\\propto",
    "∼": "\\sim",
    "≃": "\\simeq",
    "⊏": "\\sqsubset",
    "⊐": "\\sqsupset",
    "⊑": "\\sqsubseteq",
    "⊒": "\\sqsupseteq",
    "⊂": "\\subset",
    "⊃": "\\supset",
    "⊆": "\\subseteq",
    "⊇": "\\supseteq",
    "∩": "\\intersect",
    "∪": "\\union",
    "‥": "..",
    "…": "...",
    "⊕": "(+)",
    "⊖": "(-)",
    "‖": "||",
    "⊙": "(.)",
    "⊘": "(/)",
    "⊗": "(\\X)",
    "◯": "\\bigcirc",
    "●": "\\bullet",
    "÷": "\\div",
    "∘": "\\o",
    "⋆": "\\star",
    "‼": "!!",
    "⁇": "??",
    "⊓": "\\sqcap",
    "⊔": "\\sqcup",
    "⊎": "\\uplus",
    "×": "\\X",
    "≀": "\\wr",
    "⋅": "\\cdot",
    "⁺": "^+",
}

# Characters that glue to a neighbouring operator into another token (`=` then `<<` would read
# as `=<` `<`): a space goes between such a character and a rewritten symbol.
_OPERATOR_CHARS = set("=<>+-*/\\|~#.:&^!?$%@'")
_WORD_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass
class AsciiSpec:
    text: str
    symbols: int = 0  # Unicode symbols rewritten outside strings and comments
    realigned_lines: int = 0  # lines given spaces to keep a junction list aligned
    counts: dict[str, int] = field(default_factory=dict)  # symbol -> times rewritten

    def summary(self) -> UnicodeSummary:
        """What the run records: visible and honest about the text the tools were given."""
        return {
            "symbols_rewritten": self.symbols,
            "lines_realigned": self.realigned_lines,
            "symbols": dict(sorted(self.counts.items())),
            "table": TABLE_SOURCE,
        }


@dataclass
class _Line:
    text: str
    columns: list[int]  # the new column of each original column, and of the line's end


def to_ascii(text: str) -> AsciiSpec:
    """`text` with its standard Unicode symbols spelled in ASCII (see the module docstring)."""
    lines, counts = _spell_out(text)
    symbols = sum(counts.values())
    if not symbols:
        return AsciiSpec(text)
    pads = _alignment_pads(text, lines)
    read = "".join(_apply_pads(line, pads.get(row, {})) for row, line in enumerate(lines))
    return AsciiSpec(read, symbols, sum(1 for row_pads in pads.values() if row_pads), counts)


def spell_out(text: str) -> str:
    """The symbol rewrite alone, without re-aligning junction lists: linear in the text, for the
    upload's pre-scan (it bounds what the parser then sees: `⟨` nests like `<<`)."""
    lines, counts = _spell_out(text)
    return "".join(line.text for line in lines) if counts else text


def _spell_out(text: str) -> tuple[list[_Line], dict[str, int]]:
    counts: dict[str, int] = {}
    lines: list[_Line] = []
    depth = 0  # block comment nesting, carried across lines
    for raw in _rows(text):
        line, depth = _spell_out_line(raw, depth, counts)
        lines.append(line)
    return lines, counts


def _spell_out_line(raw: str, depth: int, counts: dict[str, int]) -> tuple[_Line, int]:
    out: list[str] = []
    columns: list[int] = []
    width = 0
    i = 0
    in_string = False
    while i < len(raw):
        char = raw[i]
        pair = raw[i : i + 2]
        step = 1
        if depth:
            if pair == "(*":
                depth, step = depth + 1, 2
            elif pair == "*)":
                depth, step = depth - 1, 2
        elif in_string:
            if char == "\\":
                step = 2  # an escape: `\"` does not end the string
            elif char == '"':
                in_string = False
        elif pair == "\\*":
            step = len(raw) - i  # the rest of the line is a comment
        elif pair == "(*":
            depth, step = 1, 2
        elif char == '"':
            in_string = True
        elif char in TABLE:
            spelled = _spaced(TABLE[char], out, raw[i + 1 : i + 2])
            counts[char] = counts.get(char, 0) + 1
            columns.append(width)
            out.append(spelled)
            width += len(spelled)
            i += 1
            continue
        piece = raw[i : i + step]
        for _ in piece:
            columns.append(width)
            width += 1
        out.append(piece)
        i += step
    columns.append(width)
    return _Line("".join(out), columns), depth


def _spaced(spelled: str, before: list[str], after: str) -> str:
    """`spelled` with a space where it would otherwise fuse with its neighbours into one token."""
    previous = before[-1][-1:] if before else ""
    if previous in _OPERATOR_CHARS and spelled[0] in _OPERATOR_CHARS:
        spelled = " " + spelled
    after = TABLE.get(after, after)[:1]
    if after and (
        (after in _OPERATOR_CHARS and spelled[-1] in _OPERATOR_CHARS)
        or (after in _WORD_CHARS and spelled[-1] in _WORD_CHARS)
    ):
        spelled += " "
    return spelled


def _alignment_pads(text: str, lines: list[_Line]) -> dict[int, dict[int, int]]:
    """line -> {original column: spaces inserted before it}, so that every junction list of the
    original text stays a list with the same items once its symbols are spelled out."""
    source = text.encode("utf-8")
    tree = treesitter.parse(source)
    raw_lines = [row.encode("utf-8") for row in _rows(text)]
    pads: dict[int, dict[int, int]] = {}

    def char_col(row: int, byte_col: int) -> int:
        return len(raw_lines[row][:byte_col].decode("utf-8", "replace"))

    def new_col(row: int, col: int) -> int:
        shift = sum(n for at, n in pads.get(row, {}).items() if at <= col)
        return lines[row].columns[min(col, len(lines[row].columns) - 1)] + shift

    def pad(row: int, col: int, spaces: int) -> None:
        if spaces > 0:
            row_pads = pads.setdefault(row, {})
            row_pads[col] = row_pads.get(col, 0) + spaces

    for junction in _junction_lists(tree.root_node):
        items = []
        for item in junction.children:
            bullet = item.children[0] if item.children else None
            if bullet is None or not bullet.type.startswith("bullet_"):
                continue
            row = bullet.start_point.row
            items.append((row, char_col(row, bullet.start_point.column), item.end_point.row))
        if not items or any(row >= len(lines) for row, _, _ in items):
            continue
        target = max(new_col(row, col) for row, col, _ in items)
        for row, col, end_row in items:
            pad(row, col, target - new_col(row, col))
            moved = target - col  # the bullet's shift; its continuation lines follow it
            for following in range(row + 1, min(end_row, len(lines) - 1) + 1):
                first = _first_token(raw_lines[following])
                if first is not None:
                    pad(following, first, moved - (new_col(following, first) - first))
    return pads


def _rows(text: str) -> list[str]:
    """Lines as tree-sitter and SANY count them (at `\\n` only), each with its newline."""
    rows = text.split("\n")
    return [row + "\n" for row in rows[:-1]] + ([rows[-1]] if rows[-1] else [])


def _junction_lists(root: Node) -> Iterator[Node]:
    """Every conjunction/disjunction list, outer before inner, earlier before later."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("conj_list", "disj_list"):
            yield node
        stack.extend(reversed(node.children))


def _first_token(raw: bytes) -> int | None:
    text = raw.decode("utf-8", "replace")
    stripped = text.lstrip(" \t")
    if not stripped.strip():
        return None
    return len(text) - len(stripped)


def _apply_pads(line: _Line, row_pads: dict[int, int]) -> str:
    if not row_pads:
        return line.text
    text = line.text
    # Insert right to left so earlier insertions do not move later positions.
    for col in sorted(row_pads, reverse=True):
        at = line.columns[min(col, len(line.columns) - 1)]
        text = text[:at] + " " * row_pads[col] + text[at:]
    return text
