"""The contract's value vocabulary (`schema.<var>.values`) as Python checks.

A small reader for the set expressions contracts use: set literals, `a..b`, `[D -> S]`,
`[f : S, ...]`, `Seq(S)`, `SUBSET S`, `S \\cup T`, BOOLEAN, Nat, Int, STRING and pinned
constant names. Anything else becomes `Unknown`, which checks only that the JSON value has a
TLA+ encoding. Window values are checked against it before any module is generated, so a string
never meets a model value or a boolean inside TLC, and specificity draws its alternative values
from the finite parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from evaluation.inputs.contracts import Contract

# A set element a contract can write (`{"idle", 1, TRUE}`); window values are any JSON.
Scalar = str | int | bool

_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<int>-?\d+)|(?P<op>\.\.|->|\|->|\\cup|\\union|[{}\[\](),:+]|-)'
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*))"
)


class VocabError(ValueError):
    """The expression uses a form this reader does not know."""


@dataclass(frozen=True)
class Vocab:
    def check(self, value: Any, path: str) -> str:
        """'' when `value` belongs to the vocabulary, else the reason it does not."""
        raise NotImplementedError

    def finite(self) -> list[Scalar] | None:
        return None


@dataclass(frozen=True)
class Unknown(Vocab):
    def check(self, value: Any, path: str) -> str:
        return _json_ok(value, path)


@dataclass(frozen=True)
class Finite(Vocab):
    values: tuple[Scalar, ...]

    def check(self, value: Any, path: str) -> str:
        for v in self.values:
            if _same(v, value):
                return ""
        shown = ", ".join(_show(v) for v in self.values[:8])
        return f"{path}: {_show(value)} is not one of {{{shown}}}"

    def finite(self) -> list[Scalar] | None:
        return list(self.values)


@dataclass(frozen=True)
class Kind(Vocab):
    kind: str  # "int" | "nat" | "str" | "bool"

    def check(self, value: Any, path: str) -> str:
        ok = {
            "int": _is_int(value),
            "nat": _is_int(value) and value >= 0,
            "str": isinstance(value, str),
            "bool": isinstance(value, bool),
        }[self.kind]
        return "" if ok else f"{path}: {_show(value)} is not a {self.kind} value"

    def finite(self) -> list[Scalar] | None:
        return [False, True] if self.kind == "bool" else None


@dataclass(frozen=True)
class Range(Vocab):
    low: int
    high: int

    def check(self, value: Any, path: str) -> str:
        if _is_int(value) and self.low <= value <= self.high:
            return ""
        return f"{path}: {_show(value)} is not in {self.low}..{self.high}"

    def finite(self) -> list[Scalar] | None:
        return list(range(self.low, self.high + 1)) if self.high - self.low < 64 else None


@dataclass(frozen=True)
class Union(Vocab):
    parts: tuple[Vocab, ...]

    def check(self, value: Any, path: str) -> str:
        reasons = [p.check(value, path) for p in self.parts]
        return "" if any(r == "" for r in reasons) else reasons[0]

    def finite(self) -> list[Scalar] | None:
        out: list[Scalar] = []
        for part in self.parts:
            values = part.finite()
            if values is None:
                return None
            out.extend(v for v in values if not any(_same(v, o) for o in out))
        return out


@dataclass(frozen=True)
class FuncSet(Vocab):
    domain: Vocab
    codomain: Vocab

    def keys(self) -> list[Scalar] | None:
        return self.domain.finite()

    def check(self, value: Any, path: str) -> str:
        if not isinstance(value, dict):
            return f"{path}: {_show(value)} is not a function (JSON object)"
        keys = self.keys()
        return _first_reason(
            f"{path}: key {key!r} is outside the domain"
            if keys is not None and not any(_same(key, k) for k in keys)
            else self.codomain.check(item, f"{path}[{key}]")
            for key, item in value.items()
        )


@dataclass(frozen=True)
class RecordSet(Vocab):
    fields: tuple[tuple[str, Vocab], ...]

    def check(self, value: Any, path: str) -> str:
        if not isinstance(value, dict):
            return f"{path}: {_show(value)} is not a record (JSON object)"
        # Fields the record type names must have their types; other fields are allowed, since
        # contracts describe message records by their common fields.
        known = dict(self.fields)
        return _first_reason(
            known[key].check(item, f"{path}.{key}")
            if key in known
            else _json_ok(item, f"{path}.{key}")
            for key, item in value.items()
        )


@dataclass(frozen=True)
class SeqOf(Vocab):
    element: Vocab

    def check(self, value: Any, path: str) -> str:
        if not isinstance(value, list):
            return f"{path}: {_show(value)} is not a sequence (JSON list)"
        return _first_reason(
            self.element.check(item, f"{path}[{i}]") for i, item in enumerate(value)
        )


@dataclass(frozen=True)
class SubsetOf(Vocab):
    element: Vocab

    def check(self, value: Any, path: str) -> str:
        return f"{path}: sets have no JSON encoding in windows"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _same(a: object, b: object) -> bool:
    # Python says True == 1; TLA+ never does.
    return type(a) is type(b) and a == b


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _first_reason(reasons: Iterable[str]) -> str:
    """The first non-empty reason, checking no further; "" when every check passed."""
    return next((r for r in reasons if r), "")


def _json_ok(value: object, path: str) -> str:
    if value is None:
        return f"{path}: null has no TLA+ value"
    if isinstance(value, float):
        return f"{path}: float {value!r} has no TLA+ value"
    if isinstance(value, list):
        return _first_reason(_json_ok(v, f"{path}[{i}]") for i, v in enumerate(value))
    if isinstance(value, dict):
        return _first_reason(_json_ok(v, f"{path}[{k}]") for k, v in value.items())
    return ""


# ----------------------------------------------------------------------------- reader


class _Reader:
    def __init__(self, text: str, constants: dict[str, str], depth: int = 0) -> None:
        self.tokens = self._lex(text)
        self.i = 0
        self.constants = constants
        self.depth = depth

    @staticmethod
    def _lex(text: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise VocabError(f"cannot read {text[pos : pos + 20]!r}")
            kind = m.lastgroup or ""  # every alternative of _TOKEN is a named group
            out.append((kind, m.group(kind)))
            pos = m.end()
            while pos < len(text) and text[pos].isspace():
                pos += 1
        return out

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.i] if self.i < len(self.tokens) else ("end", "")

    def take(self, expected: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if expected is not None and tok[1] != expected:
            raise VocabError(f"expected {expected!r}, found {tok[1]!r}")
        self.i += 1
        return tok

    def done(self) -> bool:
        return self.i >= len(self.tokens)

    def expr(self) -> Vocab:
        parts = [self.atom()]
        while self.peek()[1] in ("\\cup", "\\union"):
            self.take()
            parts.append(self.atom())
        return parts[0] if len(parts) == 1 else Union(tuple(parts))

    def atom(self) -> Vocab:
        kind, text = self.peek()
        if text == "{":
            return self.set_literal()
        if text == "[":
            return self.bracket()
        if kind in ("int", "name") or text == "(":
            start = self.i
            try:
                low = self.int_expr()
                self.take("..")
                return Range(low, self.int_expr())
            except VocabError:
                self.i = start
        if text == "(":
            self.take()
            inner = self.expr()
            self.take(")")
            return inner
        if kind == "name":
            return self.named()
        raise VocabError(f"unexpected {text!r}")

    def int_expr(self) -> int:
        value = self.int_term()
        while self.peek()[1] in ("+", "-"):
            sign = 1 if self.take()[1] == "+" else -1
            value += sign * self.int_term()
        return value

    def int_term(self) -> int:
        kind, text = self.take()
        if kind == "int":
            return int(text)
        if text == "(":
            value = self.int_expr()
            self.take(")")
            return value
        constant = self.constant_scalar(text) if kind == "name" else None
        if isinstance(constant, int) and not isinstance(constant, bool):
            return constant
        raise VocabError(f"{text!r} is not an integer")

    def constant_scalar(self, name: str) -> Scalar | None:
        if name not in self.constants or self.depth >= 4:
            return None
        reader = _Reader(self.constants[name], self.constants, self.depth + 1)
        try:
            value = reader.scalar()
        except (VocabError, IndexError):
            return None
        return value if reader.done() else None

    def named(self) -> Vocab:
        name = self.take()[1]
        simple = {"BOOLEAN": Kind("bool"), "Nat": Kind("nat"), "Int": Kind("int")}
        if name in simple:
            return simple[name]
        if name == "STRING":
            return Kind("str")
        if name in ("Seq", "SUBSET"):
            if name == "Seq":
                self.take("(")
                inner = self.expr()
                self.take(")")
                return SeqOf(inner)
            return SubsetOf(self.atom())
        if name in self.constants and self.depth < 4:
            return parse_vocab(self.constants[name], self.constants, self.depth + 1)
        raise VocabError(f"unknown name {name!r}")

    def set_literal(self) -> Vocab:
        self.take("{")
        values: list[Scalar] = []
        while self.peek()[1] != "}":
            values.append(self.scalar())
            if self.peek()[1] == ",":
                self.take()
        self.take("}")
        return Finite(tuple(values))

    def scalar(self) -> Scalar:
        kind, text = self.take()
        if kind == "name" and text not in ("TRUE", "FALSE"):
            value = self.constant_scalar(text)
            if value is None:
                raise VocabError(f"set element {text!r} is not a scalar constant")
            return value
        if kind == "str":
            return bytes(text[1:-1], "utf-8").decode("unicode_escape")
        if kind == "int":
            return int(text)
        if text in ("TRUE", "FALSE"):
            return text == "TRUE"
        raise VocabError(f"set element {text!r} is not a string, integer or boolean")

    def bracket(self) -> Vocab:
        self.take("[")
        kind, text = self.peek()
        if kind == "name" and self.tokens[self.i + 1][1] == ":":
            fields = []
            while True:
                name = self.take()[1]
                self.take(":")
                fields.append((name, self.expr()))
                if self.peek()[1] != ",":
                    break
                self.take(",")
            self.take("]")
            return RecordSet(tuple(fields))
        domain = self.expr()
        self.take("->")
        codomain = self.expr()
        self.take("]")
        return FuncSet(domain, codomain)


def parse_vocab(text: str, constants: dict[str, str], depth: int = 0) -> Vocab:
    """The vocabulary of one `values` expression; `Unknown` for forms this reader lacks."""
    try:
        reader = _Reader(text, constants, depth)
        vocab = reader.expr()
        if not reader.done():
            raise VocabError("trailing text")
        return vocab
    except (VocabError, IndexError, UnicodeDecodeError):
        return Unknown()


def schema_vocab(contract: Contract) -> dict[str, Vocab]:
    return {
        name: parse_vocab(var.values, contract.constants) for name, var in contract.schema.items()
    }
