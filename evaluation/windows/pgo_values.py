"""TLA+ values as PGo's trace recorder prints them, parsed into Python.

PGo writes every value in `csElements` as TLA+ text: integers, strings, TRUE/FALSE, sequences
`<<a, b>>`, sets `{a, b}`, functions `((k) :> (v) @@ ...)`, the empty function
`[x \\in {} |-> x]`, and `defaultInitValue` for a variable that was never assigned. Functions
become dicts, sequences lists, sets `TlaSet` (a tuple: JSON windows cannot carry sets, so a
cutter must translate or drop them), `defaultInitValue` the `DEFAULT_INIT` marker.
"""

from __future__ import annotations

import re
from typing import Any

# A value as parsed: int, str, bool, list, dict, TlaSet or DEFAULT_INIT.
Value = Any
Tokens = list[tuple[str, str]]


class TlaSet(tuple[Any, ...]):
    """A TLA+ set value, kept apart from sequences."""


class _Default:
    def __repr__(self) -> str:
        return "defaultInitValue"


DEFAULT_INIT = _Default()

_TOKEN = re.compile(
    r'\s*(?:(?P<int>-?\d+)|(?P<str>"(?:[^"\\]|\\.)*")|(?P<empty>\[x \\in \{\} \|-> x\])'
    r"|(?P<op><<|>>|:>|@@|[(){},])|(?P<word>[A-Za-z_][A-Za-z_0-9]*))"
)
_WORDS = {"TRUE": True, "FALSE": False, "defaultInitValue": DEFAULT_INIT}


class TlaValueError(ValueError):
    pass


def parse_value(text: str) -> Value:
    tokens = _tokenize(text)
    value, pos = _expr(tokens, 0)
    if pos != len(tokens):
        raise TlaValueError(f"unexpected {tokens[pos][1]!r} in TLA+ value")
    return value


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: Tokens = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None:
            raise TlaValueError(f"cannot read TLA+ value at {text[pos : pos + 20]!r}")
        kind = match.lastgroup or ""  # every alternative of _TOKEN is a named group
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    if not tokens:
        raise TlaValueError("empty TLA+ value")
    return tokens


def _expr(tokens: Tokens, pos: int) -> tuple[Value, int]:
    """term ('@@' term)*, where a term `k :> v` is a one-point function."""
    value, pos, is_fn = _term(tokens, pos)
    if not is_fn:
        return value, pos
    while pos < len(tokens) and tokens[pos][1] == "@@":
        more, pos, more_fn = _term(tokens, pos + 1)
        if not more_fn:
            raise TlaValueError("@@ needs functions on both sides")
        value = {**more, **value}
    return value, pos


def _term(tokens: Tokens, pos: int) -> tuple[Value, int, bool]:
    left, pos = _primary(tokens, pos)
    if pos < len(tokens) and tokens[pos][1] == ":>":
        right, pos = _primary(tokens, pos + 1)
        return {_key(left): right}, pos, True
    return left, pos, isinstance(left, dict)


def _key(value: Value) -> Value:
    if isinstance(value, (dict, list, TlaSet)):
        raise TlaValueError("function keys must be integers or strings")
    return value


def _primary(tokens: Tokens, pos: int) -> tuple[Value, int]:
    if pos >= len(tokens):
        raise TlaValueError("TLA+ value ends too early")
    kind, text = tokens[pos]
    if kind == "int":
        return int(text), pos + 1
    if kind == "str":
        return bytes(text[1:-1], "utf-8").decode("unicode_escape"), pos + 1
    if kind == "empty":
        return {}, pos + 1
    if kind == "word":
        if text not in _WORDS:
            raise TlaValueError(f"unknown name {text!r} in TLA+ value")
        return _WORDS[text], pos + 1
    if text == "(":
        value, pos = _expr(tokens, pos + 1)
        return value, _expect(tokens, pos, ")")
    if text == "<<":
        items, pos = _items(tokens, pos + 1, ">>")
        return items, pos
    if text == "{":
        items, pos = _items(tokens, pos + 1, "}")
        return TlaSet(items), pos
    raise TlaValueError(f"unexpected {text!r} in TLA+ value")


def _items(tokens: Tokens, pos: int, close: str) -> tuple[list[Value], int]:
    items: list[Value] = []
    if pos < len(tokens) and tokens[pos][1] == close:
        return items, pos + 1
    while True:
        value, pos = _expr(tokens, pos)
        items.append(value)
        if pos < len(tokens) and tokens[pos][1] == ",":
            pos += 1
            continue
        return items, _expect(tokens, pos, close)


def _expect(tokens: Tokens, pos: int, text: str) -> int:
    if pos >= len(tokens) or tokens[pos][1] != text:
        raise TlaValueError(f"expected {text!r} in TLA+ value")
    return pos + 1
