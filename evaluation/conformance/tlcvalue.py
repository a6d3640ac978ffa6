"""Read values as TLC prints them back into Python, keeping TLA+ distinctions.

strings -> str, integers -> int, TRUE/FALSE -> bool, `<<..>>` -> tuple, `{..}` and `a..b` ->
TlaSet, records and `(k :> v @@ ..)` functions -> dict, bare identifiers -> ModelValue. A model
value is its own type, so it never compares equal to the string with the same spelling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<int>-?\d+)'
    r"|(?P<op><<|>>|\.\.|\|->|:>|@@|[{}\[\](),])|(?P<name>[A-Za-z_][A-Za-z0-9_]*))"
)


class TlcValueError(ValueError):
    pass


@dataclass(frozen=True)
class ModelValue:
    name: str

    def __repr__(self) -> str:
        return self.name


@dataclass(frozen=True)
class TlaSet:
    items: frozenset

    def __repr__(self) -> str:
        return "{" + ", ".join(sorted(repr(i) for i in self.items)) + "}"


def _unescape(text: str) -> str:
    return re.sub(
        r"\\(.)",
        lambda m: {"n": "\n", "t": "\t", "r": "\r", "f": "\f"}.get(m.group(1), m.group(1)),
        text[1:-1],
    )


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def tok(self, consume=True):
        m = _TOKEN.match(self.text, self.pos)
        if not m or m.end() == self.pos:
            raise TlcValueError(f"cannot read TLC value at {self.text[self.pos : self.pos + 30]!r}")
        if consume:
            self.pos = m.end()
        return m.lastgroup, m.group(m.lastgroup)

    def expect(self, text: str) -> None:
        kind, got = self.tok()
        if got != text:
            raise TlcValueError(f"expected {text!r}, got {got!r}")

    def at(self, text: str) -> bool:
        try:
            return self.tok(consume=False)[1] == text
        except TlcValueError:
            return False

    def value(self):
        kind, text = self.tok()
        if kind == "str":
            return _unescape(text)
        if kind == "int":
            low = int(text)
            if self.at(".."):
                self.tok()
                high = int(self.tok()[1])
                return TlaSet(frozenset(range(low, high + 1)))
            return low
        if kind == "name":
            return {"TRUE": True, "FALSE": False}.get(text, ModelValue(text))
        if text == "<<":
            return tuple(self.items(">>"))
        if text == "{":
            return TlaSet(frozenset(self.items("}")))
        if text == "[":
            return self.record()
        if text == "(":
            return self.function()
        raise TlcValueError(f"unexpected {text!r}")

    def items(self, close: str) -> list:
        out = []
        while not self.at(close):
            out.append(self.value())
            if self.at(","):
                self.tok()
        self.tok()
        return out

    def record(self) -> dict:
        out = {}
        while not self.at("]"):
            kind, name = self.tok()
            self.expect("|->")
            out[name] = self.value()
            if self.at(","):
                self.tok()
        self.tok()
        return out

    def function(self) -> dict:
        out = {}
        while True:
            key = self.value()
            if self.at(")") and not out:
                self.tok()
                return key  # a parenthesised plain value
            self.expect(":>")
            out[key] = self.value()
            if self.at("@@"):
                self.tok()
                continue
            self.expect(")")
            return out


def parse_tlc_value(text: str):
    parser = _Parser(text)
    value = parser.value()
    if parser.text[parser.pos :].strip():
        raise TlcValueError(f"trailing text {parser.text[parser.pos :][:30]!r}")
    return value


def to_json_like(value):
    """Tuples become lists so TLC values compare with JSON window values."""
    if isinstance(value, tuple):
        return [to_json_like(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json_like(v) for k, v in value.items()}
    return value
