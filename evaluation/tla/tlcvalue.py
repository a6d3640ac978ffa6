r"""Read values as TLC prints them back into Python, keeping TLA+ distinctions.

strings -> str, integers -> int, TRUE/FALSE -> bool, `<<..>>` -> tuple, `{..}` and `a..b` ->
TlaSet, records `[a |-> 1]`, functions `(k :> v @@ ..)` and `[x \in S |-> e]` -> FrozenDict,
bare identifiers -> ModelValue. A model value is its own type, so it never compares equal to
the string with the same spelling. Every value is hashable, so sets of records, functions keyed
by tuples and sets of sets read back like any other value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NoReturn, TypeAlias

_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<int>-?\d+)'
    r"|(?P<op><<|>>|\.\.|\|->|:>|@@|\\in\b|[{}\[\](),:])"
    r"|(?P<name>[A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*))"
)


class TlcValueError(ValueError):
    pass


@dataclass(frozen=True)
class ModelValue:
    name: str

    def __repr__(self) -> str:
        return self.name


class FrozenDict(dict[Any, Any]):
    """A TLA+ function or record: a dict (so it equals the JSON objects windows carry) that
    cannot change and can be hashed (so it can sit in a set or be a key)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def _immutable(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("a TLA+ value read from TLC cannot be changed")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _immutable


@dataclass(frozen=True)
class TlaSet:
    items: frozenset[TlcValue]

    def __repr__(self) -> str:
        return "{" + ", ".join(sorted(repr(i) for i in self.items)) + "}"


# A value as TLC prints it, read back (FrozenDict's keys and values are TlcValues too).
TlcValue: TypeAlias = "str | int | bool | tuple[TlcValue, ...] | TlaSet | FrozenDict | ModelValue"


def _unescape(text: str) -> str:
    return re.sub(
        r"\\(.)",
        lambda m: {"n": "\n", "t": "\t", "r": "\r", "f": "\f"}.get(m.group(1), m.group(1)),
        text[1:-1],
    )


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def tok(self, consume: bool = True) -> tuple[str, str]:
        m = _TOKEN.match(self.text, self.pos)
        if not m or m.end() == self.pos:
            raise TlcValueError(f"cannot read TLC value at {self.text[self.pos : self.pos + 30]!r}")
        if consume:
            self.pos = m.end()
        kind = m.lastgroup or ""  # every alternative of _TOKEN is a named group
        return kind, m.group(kind)

    def expect(self, text: str) -> None:
        kind, got = self.tok()
        if got != text:
            raise TlcValueError(f"expected {text!r}, got {got!r}")

    def at(self, text: str) -> bool:
        try:
            return self.tok(consume=False)[1] == text
        except TlcValueError:
            return False

    def value(self) -> TlcValue:
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
            return self.bracket()
        if text == "(":
            return self.function()
        raise TlcValueError(f"unexpected {text!r}")

    def items(self, close: str) -> list[TlcValue]:
        out = []
        while not self.at(close):
            out.append(self.value())
            if self.at(","):
                self.tok()
        self.tok()
        return out

    def bracket(self) -> FrozenDict:
        """`[a |-> 1, b |-> 2]` (a record) or `[x \\in S |-> e]` (a function)."""
        out: dict[str, TlcValue] = {}
        while not self.at("]"):
            kind, name = self.tok()
            if kind != "name":
                raise TlcValueError(f"expected a field name, got {name!r}")
            if self.at("\\in"):
                return self.lambda_function(name)
            self.expect("|->")
            out[name] = self.value()
            if self.at(","):
                self.tok()
        self.tok()
        return FrozenDict(out)

    def lambda_function(self, bound: str) -> FrozenDict:
        self.tok()
        domain = self.value()
        self.expect("|->")
        body = self.value()
        self.expect("]")
        if not isinstance(domain, TlaSet):
            raise TlcValueError(f"the domain of [{bound} \\in ...] is not a set")
        return FrozenDict({x: _bind(body, bound, x) for x in domain.items})

    def function(self) -> TlcValue:
        out: dict[TlcValue, TlcValue] = {}
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
            return FrozenDict(out)


def _bind(body: TlcValue, name: str, value: TlcValue) -> TlcValue:
    """`e` of `[x \\in S |-> e]` with x replaced by one element (only value-shaped bodies can be
    read; TLC prints anything else as an expression, which is refused above)."""
    if body == ModelValue(name):
        return value
    if isinstance(body, tuple):
        return tuple(_bind(b, name, value) for b in body)
    if isinstance(body, TlaSet):
        return TlaSet(frozenset(_bind(b, name, value) for b in body.items))
    if isinstance(body, dict):
        return FrozenDict({_bind(k, name, value): _bind(v, name, value) for k, v in body.items()})
    return body


def parse_tlc_value(text: str) -> TlcValue:
    parser = _Parser(text)
    value = parser.value()
    if parser.text[parser.pos :].strip():
        raise TlcValueError(f"trailing text {parser.text[parser.pos :][:30]!r}")
    return value


def to_json_like(value: Any) -> Any:
    """Tuples become lists so TLC values compare with JSON window values."""
    if isinstance(value, tuple):
        return [to_json_like(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json_like(v) for k, v in value.items()}
    return value
