"""The one encoder from JSON values (windows, contracts) to TLA+ expression text.

- dict   -> function with string keys: ("k1" :> v1 @@ "k2" :> v2), keys sorted so equal dicts
            give equal text; the empty dict is <<>>, which TLC treats as the function with
            an empty domain (tested: <<>> = [x \\in {} |-> 0]).
- list   -> sequence <<v1, v2>>
- str    -> string literal with \\ " and control characters escaped
- bool   -> TRUE / FALSE;  int -> decimal (TLC integers are 32-bit, so larger ones are refused;
            a negative one needs the module to EXTEND Integers)
- None and float have no TLA+ counterpart in our contracts and are refused.
"""

from __future__ import annotations

import re
from typing import Any

TLC_INT_MIN = -(2**31)
TLC_INT_MAX = 2**31 - 1
# As deep as TLC values are read back (`tlcvalue.MAX_DEPTH`): far deeper than any trace value.
MAX_DEPTH = 150
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\f": "\\f"}
_ESCAPE_TABLE = str.maketrans(_ESCAPES)
_NEEDS_CARE = re.compile(r'[\x00-\x1f\x7f\\"]')
_REFUSED = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")  # control characters without an escape


class ValueEncodingError(ValueError):
    """A JSON value that has no TLA+ encoding in our value conventions."""


def _string(text: str) -> str:
    # Most strings (names, states) need no escape: one regex scan instead of a loop per char,
    # which was a tenth of P3's Python time on the larger corpus specs.
    if _NEEDS_CARE.search(text) is None:
        return '"' + text + '"'
    refused = _REFUSED.search(text)
    if refused:
        raise ValueEncodingError(f"control character {refused.group()!r} in string {text!r}")
    return '"' + text.translate(_ESCAPE_TABLE) + '"'


def to_tla(value: object, path: str = "$") -> str:
    """TLA+ text for a JSON value; `path` names the offending part in errors."""
    try:
        return _encode(value, None)
    except ValueEncodingError:
        # The same refusal again, now naming where: paths cost a string per element, which
        # the millions of values P3 encodes need only when one is refused.
        return _encode(value, path)


def _encode(value: object, path: str | None) -> str:
    """Iterative (an explicit stack of what is still to write), so a value's depth costs no
    Python frames; a value nested deeper than MAX_DEPTH is refused like any other."""
    out: list[str] = []
    todo: list[tuple[object, str | None, int] | str] = [(value, path, 0)]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node, where, depth = item
        if isinstance(node, list | tuple | dict):
            if depth >= MAX_DEPTH:
                raise ValueEncodingError(f"{where}: nested deeper than {MAX_DEPTH} levels")
            todo += reversed(_children(node, where, depth + 1))
        else:
            out.append(_scalar(node, where))
    return "".join(out)


def _children(
    node: list[Any] | tuple[Any, ...] | dict[Any, Any], path: str | None, depth: int
) -> list[tuple[object, str | None, int] | str]:
    """A container as text pieces and the values inside it, in writing order."""
    parts: list[tuple[object, str | None, int] | str] = []
    if isinstance(node, dict):
        if not node:
            return ["<<>>"]
        for key in node:
            if not isinstance(key, str):
                raise ValueEncodingError(f"{path}: object key {key!r} is not a string")
        for i, key in enumerate(sorted(node)):
            parts.append(("" if i == 0 else " @@ ") + f"{_string(key)} :> ")
            parts.append((node[key], None if path is None else f"{path}.{key}", depth))
        return ["(", *parts, ")"]
    for i, element in enumerate(node):
        if i:
            parts.append(", ")
        parts.append((element, None if path is None else f"{path}[{i}]", depth))
    return ["<<", *parts, ">>"]


def _scalar(value: object, path: str | None) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        if not TLC_INT_MIN <= value <= TLC_INT_MAX:
            raise ValueEncodingError(f"{path}: integer {value} is outside TLC's 32-bit range")
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if value is None:
        raise ValueEncodingError(f"{path}: null has no TLA+ value; map it to a sentinel string")
    if isinstance(value, float):
        raise ValueEncodingError(f"{path}: float {value!r} has no TLA+ value; use an integer")
    raise ValueEncodingError(f"{path}: unsupported type {type(value).__name__}")
