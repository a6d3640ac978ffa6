"""The upload's cheap first gate: linear-time checks that run before any parser sees the text.

Tree-sitter's cost grows faster than quadratically with nesting (10k parentheses 1.2 s, 20k 6.3 s,
docs/decisions/0028-access-and-hostile-input.md), the YAML and JSON readers recurse once per
bracket, and a NUL byte or a lone UTF-16 surrogate passes SANY but cannot be stored. Each check here
is one regular-expression pass, so a text at the size limit costs milliseconds, and each message
names the line and the limit.
"""

from __future__ import annotations

import re

# The reference specs nest at most 6 brackets deep and keep lines under 200 characters; these
# limits leave ample room for hand-written or generated specs while keeping the parse cheap.
MAX_NESTING = 100
MAX_LINE_CHARS = 4000

_OPEN = {"(", "[", "{", "<<"}
_BRACKET = re.compile(r"<<|>>|[()\[\]{}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# A long chain of prefix operators (`- - - ... 1`) costs tree-sitter 18 s at 30,000 without a
# single bracket; legitimate specs never chain more than a few. Dash runs without spaces are
# separator lines (`-----`), one token, so a chain needs a space or a comment between its signs.
MAX_PREFIX_CHAIN = 100
# Possessive quantifiers: each run is matched once, whole, so the scan stays linear.
_PREFIX_RUN = re.compile(r"(?:(?:-|~|\\lnot|\\neg)(?:\s|\(\*[^*]*\*\))++)++")
_PREFIX_SIGN = re.compile(r"-|~|\\lnot|\\neg")


def unstorable(text: str, what: str = "The text") -> str:
    """A message when `text` holds a character no database column or file can keep, else ""."""
    if "\x00" in text:
        return f"{what} contains a NUL byte (line {_line_of(text, text.index(chr(0)))}); remove it."
    found = _SURROGATE.search(text)
    if found:
        return (
            f"{what} contains a lone UTF-16 surrogate (U+{ord(found.group()):04X}, line "
            f"{_line_of(text, found.start())}), which is not valid Unicode; send UTF-8 text."
        )
    return ""


def too_long_line(text: str, what: str = "The text", limit: int = MAX_LINE_CHARS) -> str:
    for number, line in enumerate(text.split("\n"), start=1):
        if len(line) > limit:
            return (
                f"{what}: line {number} is {len(line):,} characters long; the limit is "
                f"{limit:,} (break it into shorter lines)."
            )
    return ""


def too_deep(text: str, what: str = "The text", limit: int = MAX_NESTING) -> str:
    """Brackets ( [ { << nested deeper than `limit` (closers never take the depth below 0)."""
    depth = 0
    for match in _BRACKET.finditer(text):
        if match.group() in _OPEN:
            depth += 1
            if depth > limit:
                return (
                    f"{what} nests brackets more than {limit} deep (line "
                    f"{_line_of(text, match.start())}); flatten it with named definitions."
                )
        elif depth:
            depth -= 1
    return ""


def too_long_a_prefix_chain(text: str, what: str = "The text") -> str:
    for run in _PREFIX_RUN.finditer(text):
        if len(run.group()) > MAX_PREFIX_CHAIN and (
            len(_PREFIX_SIGN.findall(run.group())) > MAX_PREFIX_CHAIN
        ):
            return (
                f"{what} chains more than {MAX_PREFIX_CHAIN} prefix operators (- ~ \\lnot) in "
                f"a row (line {_line_of(text, run.start())}); simplify the expression."
            )
    return ""


def first_problem(text: str, what: str = "The spec") -> str:
    """The first pre-scan problem of a decoded text, or "" (cheapest check first)."""
    return (
        unstorable(text, what)
        or too_long_line(text, what)
        or too_deep(text, what)
        or too_long_a_prefix_chain(text, what)
    )


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1
