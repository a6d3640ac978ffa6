r"""Read values as TLC prints them back into Python, keeping TLA+ distinctions.

strings -> str, integers -> int, TRUE/FALSE -> bool, `<<..>>` -> tuple, `{..}` and `a..b` ->
TlaSet, records `[a |-> 1]`, functions `(k :> v @@ ..)` and `[x \in S |-> e]` -> FrozenDict,
bare identifiers -> ModelValue. A model value is its own type, so it never compares equal to
the string with the same spelling. Every value is hashable, so sets of records, functions keyed
by tuples and sets of sets read back like any other value.

The reader is iterative (an explicit stack, no Python recursion) and reads values nested at
most MAX_DEPTH levels: a spec can make TLC print a value of any depth (a constant built from
operators that each stay under the upload's bracket cap), and every consumer of a value
(hashing, comparing, JSON) walks it. A deeper value raises `TlcValueTooDeep`, which is not a
`TlcValueError`: readers that skip an unreadable print must not skip this one, because a
print they skip can be one that withholds credit. The phase that needed it ends as an error
with that reason (`pipeline.refused_outcome`), never a crash, never a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, NoReturn, TypeAlias

_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<int>-?\d+)'
    r"|(?P<op><<|>>|\.\.|\|->|:>|@@|\\in\b|[{}\[\](),:])"
    r"|(?P<name>[A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*))"
)


# Deeper than any value an honest spec prints (the upload caps a spec's brackets at 100 levels;
# the scorer's own prints wrap a value in a few more), and shallow enough that every recursive
# consumer of a value (hash, ==, repr, json) stays far from Python's recursion limit.
MAX_DEPTH = 150


class TlcValueError(ValueError):
    pass


class TlcValueTooDeep(ValueError):
    """A value nested deeper than MAX_DEPTH: refused, never read."""

    reason: Final = "value_too_deep"

    def __init__(self, limit: int = MAX_DEPTH) -> None:
        self.limit = limit
        super().__init__(
            f"TLC printed a value nested more than {limit} levels deep; the scorer does not "
            "read values that deep"
        )


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


# What an open container waits for next (the explicit stack's frames).
_ITEMS, _FIELD, _DOMAIN, _BODY, _KEY, _VALUE = range(6)
_CLOSE = {"<<": ">>", "{": "}"}


@dataclass
class _Frame:
    opener: str
    state: int
    items: list[TlcValue]
    fields: dict[Any, TlcValue]
    pending: Any = None  # the field name, bound variable or key waiting for its value


class _Parser:
    def __init__(self, text: str, max_depth: int = MAX_DEPTH) -> None:
        self.text = text
        self.pos = 0
        self.max_depth = max_depth

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
        """One value from `pos`: containers are frames on a stack, so depth costs memory, not
        Python frames, and a value deeper than `max_depth` is refused."""
        stack: list[_Frame] = []
        while True:
            done = self._start(stack)
            while done is not None:
                if not stack:
                    return done[0]
                done = self._give(stack[-1], done[0])
                if done is not None:
                    stack.pop()

    def _start(self, stack: list[_Frame]) -> tuple[TlcValue] | None:
        """The next value's first token: an atom (or an empty container) is returned whole; a
        container is pushed and waits for its first value."""
        kind, text = self.tok()
        if kind == "str":
            return (_unescape(text),)
        if kind == "int":
            return (self._integer(int(text)),)
        if kind == "name":
            return ({"TRUE": True, "FALSE": False}.get(text, ModelValue(text)),)
        if text not in ("<<", "{", "[", "("):
            raise TlcValueError(f"unexpected {text!r}")
        if len(stack) >= self.max_depth:
            raise TlcValueTooDeep(self.max_depth)
        if text in _CLOSE and self.at(_CLOSE[text]):
            self.tok()
            return ((),) if text == "<<" else (TlaSet(frozenset()),)
        frame = _Frame(text, {"[": _FIELD, "(": _KEY}.get(text, _ITEMS), [], {})
        if text == "[":
            closed = self._next_field(frame)
            if closed is not None:
                return closed
        stack.append(frame)
        return None

    def _integer(self, low: int) -> TlcValue:
        if not self.at(".."):
            return low
        self.tok()
        high = int(self.tok()[1])
        return TlaSet(frozenset(range(low, high + 1)))

    def _next_field(self, frame: _Frame) -> tuple[TlcValue] | None:
        """In `[...]`: the closing bracket (the record), or the next field's name (`a |->`, or
        `x \\in` for a function `[x \\in S |-> e]`)."""
        if self.at("]"):
            self.tok()
            return (FrozenDict(frame.fields),)
        kind, name = self.tok()
        if kind != "name":
            raise TlcValueError(f"expected a field name, got {name!r}")
        frame.pending = name
        if self.at("\\in"):
            self.tok()
            frame.state = _DOMAIN
        else:
            self.expect("|->")
        return None

    def _give(self, frame: _Frame, value: TlcValue) -> tuple[TlcValue] | None:
        """Hand a read value to the open container; its value when that closes it."""
        if frame.state == _ITEMS:
            frame.items.append(value)
            if self.at(","):
                self.tok()
            if not self.at(_CLOSE[frame.opener]):
                return None
            self.tok()
            return (tuple(frame.items) if frame.opener == "<<" else TlaSet(frozenset(frame.items)),)
        if frame.state == _FIELD:
            frame.fields[frame.pending] = value
            if self.at(","):
                self.tok()
            return self._next_field(frame)
        if frame.state in (_DOMAIN, _BODY):
            return self._give_lambda(frame, value)
        return self._give_function(frame, value)

    def _give_lambda(self, frame: _Frame, value: TlcValue) -> tuple[TlcValue] | None:
        if frame.state == _DOMAIN:
            if not isinstance(value, TlaSet):
                raise TlcValueError(f"the domain of [{frame.pending} \\in ...] is not a set")
            frame.items, frame.state = [value], _BODY
            self.expect("|->")
            return None
        self.expect("]")
        domain = frame.items[0]
        assert isinstance(domain, TlaSet)
        return (FrozenDict({x: _bind(value, frame.pending, x) for x in domain.items}),)

    def _give_function(self, frame: _Frame, value: TlcValue) -> tuple[TlcValue] | None:
        """`(k :> v @@ ...)`, or a parenthesised plain value `(v)`."""
        if frame.state == _KEY:
            if self.at(")") and not frame.fields:
                self.tok()
                return (value,)
            self.expect(":>")
            frame.pending, frame.state = value, _VALUE
            return None
        frame.fields[frame.pending] = value
        if self.at("@@"):
            self.tok()
            frame.state = _KEY
            return None
        self.expect(")")
        return (FrozenDict(frame.fields),)


def _rebuild(value: TlcValue, leaf: Callable[[Any], Any], keys: bool = True) -> Any:
    """`value` rebuilt bottom-up with `leaf` applied to every non-container, without recursion
    (a read value is at most MAX_DEPTH deep, but a stack costs no Python frames at all).
    Sequences stay tuples, sets TlaSets, functions FrozenDicts; `keys=False` leaves a
    function's keys as they are."""
    return fold(
        value, lambda node: _parts(node, keys), leaf, lambda node, made: _assemble(node, made, keys)
    )


def fold(
    value: Any,
    parts: Callable[[Any], list[Any] | None],
    leaf: Callable[[Any], Any],
    build: Callable[[Any, list[Any]], Any],
) -> Any:
    """`value` folded bottom-up without recursion: `parts(node)` lists a container's children
    (None for a leaf, which becomes `leaf(node)`), `build(node, made)` makes a container from its
    children's results. The one walker every reader and converter of nested values shares, so
    no value is ever too deep for Python's stack."""
    out: list[Any] = []
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, built = stack.pop()
        children = parts(node)
        if children is None:
            out.append(leaf(node))
            continue
        if not built:
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(children))
            continue
        made = out[len(out) - len(children) :]
        del out[len(out) - len(children) :]
        out.append(build(node, made))
    return out[0]


def _parts(node: Any, keys: bool) -> list[Any] | None:
    if isinstance(node, tuple):
        return list(node)
    if isinstance(node, TlaSet):
        return list(node.items)
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in ((k, v) if keys else (v,))]
    return None


def _assemble(node: Any, made: list[Any], keys: bool) -> Any:
    if isinstance(node, tuple):
        return tuple(made)
    if isinstance(node, TlaSet):
        return TlaSet(frozenset(made))
    if keys:
        return FrozenDict(zip(made[0::2], made[1::2], strict=True))
    return FrozenDict(zip(node.keys(), made, strict=True))


def _bind(body: TlcValue, name: str, value: TlcValue) -> TlcValue:
    """`e` of `[x \\in S |-> e]` with x replaced by one element (only value-shaped bodies can be
    read; TLC prints anything else as an expression, which is refused above)."""
    bound = ModelValue(name)
    return _rebuild(body, lambda leaf: value if leaf == bound else leaf)  # type: ignore[no-any-return]


def parse_tlc_value(text: str) -> TlcValue:
    parser = _Parser(text)
    value = parser.value()
    if parser.text[parser.pos :].strip():
        raise TlcValueError(f"trailing text {parser.text[parser.pos :][:30]!r}")
    return value


def to_json_like(value: Any) -> Any:
    """Tuples become lists so TLC values compare with JSON window values (a function's keys and
    a set's elements stay as read, hashable). Iterative, like the reader."""

    def parts(node: Any) -> list[Any] | None:
        return list(node) if isinstance(node, tuple) else _values(node)

    def build(node: Any, made: list[Any]) -> Any:
        return made if isinstance(node, tuple) else dict(zip(node.keys(), made, strict=True))

    return fold(value, parts, lambda node: node, build)


def json_value(value: Any) -> Any:
    """JSON-friendly; a model value is shown as a marker that never equals a string (a
    function's keys as strings, anything not JSON as `{"tla": repr}`). Iterative."""

    def parts(node: Any) -> list[Any] | None:
        return list(node) if isinstance(node, list) else _values(node)

    def build(node: Any, made: list[Any]) -> Any:
        if isinstance(node, list):
            return made
        keys = [k if isinstance(k, str) else repr(k) for k in node]
        return dict(zip(keys, made, strict=True))

    return fold(value, parts, _json_leaf, build)


def _values(node: Any) -> list[Any] | None:
    return list(node.values()) if isinstance(node, dict) else None


def _json_leaf(value: Any) -> Any:
    if isinstance(value, str | int | bool) or value is None:
        return value
    return {"tla": repr(value)}
