"""What the generated modules need to know of the spec's own declarations, read from its text
(P3's wrapper and the adapter's translations both use it, so it sits with the TLA+ readers)."""

from __future__ import annotations

import re

from evaluation.tla.sandbox.precheck import strip_comments

_DECL = re.compile(
    r"\b(VARIABLES?|CONSTANTS?)\b\s+((?:[A-Za-z_]\w*(?:\s*\([^)]*\))?\s*,\s*)*[A-Za-z_]\w*"
    r"(?:\s*\([^)]*\))?)"
)
_NAME = re.compile(r"([A-Za-z_]\w*)(\s*\()?")


def _declared(text: str, keyword: str) -> list[str]:
    names: list[str] = []
    for kind, body in _DECL.findall(strip_comments(text)):
        if not kind.startswith(keyword):
            continue
        for name, paren in _NAME.findall(re.sub(r"\([^)]*\)", "()", body)):
            if not paren and name not in names:
                names.append(name)
    return names


def spec_variables(text: str) -> list[str]:
    return _declared(text, "VARIABLE")


def spec_constants(text: str) -> list[str]:
    """Declared constants of arity 0 (operator constants cannot be pinned by value)."""
    return _declared(text, "CONSTANT")


def module_name(text: str) -> str | None:
    m = re.search(r"-{4,}\s*MODULE\s+(\w*[A-Za-z]\w*)", text)
    return m.group(1) if m else None


_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def substitute(expr: str, names: dict[str, str]) -> str:
    """Replace free identifiers (`actor`, `msg`) outside strings and record-field positions."""
    pattern = re.compile(
        # Not a record field (`r.actor`) but still after an interval's `..` (`1..obs.n`).
        r"(?<![\w!])(?<![^.]\.)(" + "|".join(map(re.escape, names)) + r")(?![\w])(?!\s*\|->)"
    )
    out, last = [], 0
    for m in _STRING.finditer(expr):
        out.append(pattern.sub(lambda x: names[x.group(1)], expr[last : m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(pattern.sub(lambda x: names[x.group(1)], expr[last:]))
    return "".join(out)


_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)


def split_call(text: str) -> tuple[str, list[str]] | None:
    """(operator, its top-level argument texts) for an expression that is one call `Op(a, b)`
    or a bare `Op`; None for any other shape."""
    match = _CALL.match(text)
    if match is None or not _balanced(match.group(2) or ""):
        return None  # `A(x) \/ B(x)` matches the pattern but is no single call
    return match.group(1), _split_args(match.group(2) or "")


def _balanced(text: str) -> bool:
    depth, quoted = 0, False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "([{":
            depth += 1
        elif not quoted and ch in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0 and not quoted


def _split_args(text: str) -> list[str]:
    """Top-level comma-separated arguments (brackets, tuples and strings kept whole)."""
    args, depth, start, quoted, i = [], 0, 0, False, 0
    while i < len(text):
        pair = text[i : i + 2]
        if text[i] == '"':
            quoted = not quoted
        elif quoted:
            pass
        elif pair in ("<<", ">>"):
            depth += 1 if pair == "<<" else -1
            i += 1
        elif text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
        elif text[i] == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
        i += 1
    if text[start:].strip():
        args.append(text[start:].strip())
    return args
