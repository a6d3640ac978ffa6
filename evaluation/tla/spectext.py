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
