"""A submitter's TLC `.cfg`, read into what the scorer can use and what it must ignore.

TLC's config grammar is small: a sequence of sections, each opened by a keyword. Values in a
`CONSTANT C = v` assignment are integers, strings, booleans, model values (any other bare
identifier) and sets of those, possibly nested. `C <- Op` substitutes a definition of the spec.

What the scorer uses (`TlcConfig`):
- constant assignments, as TLA+ text, with the model values they introduce listed apart (a
  generated module declares them as CONSTANTS and the cfg assigns `m = m`, the way TLC's own
  Toolbox does);
- `C <- Op` substitutions (the spec's own definition, so nothing outside the spec is invented);
- `SPECIFICATION`/`INIT`/`NEXT`: the spec's operator names for its behaviour.
Everything else is listed in `ignored` with the reason: the contract decides what is checked
(`INVARIANT`, `PROPERTY`), and nothing a submitter writes may narrow what TLC explores
(`CONSTRAINT`, `ACTION_CONSTRAINT`, `SYMMETRY`, `VIEW`) or change how a run ends
(`CHECK_DEADLOCK` is not even understood by the pinned TLC; the contract's deadlock policy
applies). Django-free and tool-free: plain text in, dataclass out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

KEYWORDS = {
    "CONSTANT": "CONSTANT",
    "CONSTANTS": "CONSTANT",
    "INIT": "INIT",
    "NEXT": "NEXT",
    "SPECIFICATION": "SPECIFICATION",
    "INVARIANT": "INVARIANT",
    "INVARIANTS": "INVARIANT",
    "PROPERTY": "PROPERTY",
    "PROPERTIES": "PROPERTY",
    "CONSTRAINT": "CONSTRAINT",
    "CONSTRAINTS": "CONSTRAINT",
    "ACTION_CONSTRAINT": "ACTION_CONSTRAINT",
    "ACTION_CONSTRAINTS": "ACTION_CONSTRAINT",
    "SYMMETRY": "SYMMETRY",
    "VIEW": "VIEW",
    "CHECK_DEADLOCK": "CHECK_DEADLOCK",
    "POSTCONDITION": "POSTCONDITION",
    "ALIAS": "ALIAS",
}
IGNORED_BECAUSE = {
    "INVARIANT": "the task contract decides which invariants are checked (P4)",
    "PROPERTY": "the task contract decides which properties are checked (P4)",
    "CONSTRAINT": "a state constraint would let the submission narrow what TLC explores; "
    "exploration is bounded by the contract's budgets instead",
    "ACTION_CONSTRAINT": "an action constraint would let the submission narrow what TLC "
    "explores; exploration is bounded by the contract's budgets instead",
    "SYMMETRY": "symmetry reduction can hide violations of properties that are not symmetric",
    "VIEW": "a view changes which states TLC considers equal, which can hide violations",
    "CHECK_DEADLOCK": "CHECK_DEADLOCK is not supported by the pinned TLC; the task contract's "
    "deadlock policy applies",
    "POSTCONDITION": "the scorer reads TLC's verdicts, not postconditions",
    "ALIAS": "an alias changes how TLC prints states, which the scorer reads",
}
_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\\n]|\\.)*")|(?P<int>-?\d+(?![A-Za-z_]))'
    r"|(?P<op><-|=|[{}\[\](),])|(?P<name>[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*))"
)


class CfgError(ValueError):
    """The cfg cannot be read; the message names the line."""


@dataclass
class TlcConfig:
    constants: dict[str, str] = field(default_factory=dict)  # C -> TLA+ value text
    model_values: list[str] = field(default_factory=list)  # in order of appearance
    substitutions: dict[str, str] = field(default_factory=dict)  # C -> spec operator
    specification: str | None = None
    init: str | None = None
    next: str | None = None
    ignored: list[dict[str, Any]] = field(default_factory=list)  # {line, entry, reason}
    # C -> the line assigning it, so an assignment the scorer cannot use is named by its line.
    lines: dict[str, int] = field(default_factory=dict)

    def ignore(self, line: int, entry: str, reason: str) -> None:
        self.ignored.append({"line": line, "entry": entry, "reason": reason})


def parse_cfg(text: str) -> TlcConfig:
    tokens = _tokens(text)
    cfg = TlcConfig()
    i = 0
    section = None
    while i < len(tokens):
        kind, value, line = tokens[i]
        if kind == "name" and value in KEYWORDS:
            section = KEYWORDS[value]
            i += 1
            if section == "CHECK_DEADLOCK":
                flag = tokens[i][1] if i < len(tokens) else ""
                i += 1 if flag in ("TRUE", "FALSE") else 0
                cfg.ignore(line, f"CHECK_DEADLOCK {flag}".strip(), IGNORED_BECAUSE[section])
            continue
        if section is None:
            raise CfgError(f"line {line}: {value!r} before any section keyword (CONSTANTS, ...)")
        if section == "CONSTANT":
            i = _constant(tokens, i, cfg)
        elif section in ("INIT", "NEXT", "SPECIFICATION"):
            _expect_name(kind, value, line, section)
            if getattr(cfg, section.lower()) is not None:
                raise CfgError(f"line {line}: a second {section} ({value})")
            setattr(cfg, section.lower(), value)
            i += 1
        else:
            _expect_name(kind, value, line, section)
            cfg.ignore(line, f"{section} {value}", IGNORED_BECAUSE[section])
            i += 1
    return cfg


def _expect_name(kind: str, value: str, line: int, section: str) -> None:
    if kind != "name":
        raise CfgError(f"line {line}: {section} expects an operator name, got {value!r}")


Token = tuple[str, str, int]  # (kind: the _TOKEN group, text, line)


def _tokens(text: str) -> list[Token]:
    text = _strip_comments(text)
    out: list[Token] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        m = _TOKEN.match(text, pos)
        line = text.count("\n", 0, pos) + 1
        if not m or m.end() == pos:
            raise CfgError(f"line {line}: cannot read {text[pos : pos + 20]!r}")
        kind = m.lastgroup or ""  # every alternative of _TOKEN is a named group
        out.append((kind, m.group(kind), line))
        pos = m.end()


def _strip_comments(text: str) -> str:
    """Comments become blanks of the same line count, so line numbers stay right."""

    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    text = re.sub(r"\(\*.*?\*\)", blank, text, flags=re.DOTALL)
    return re.sub(r"\\\*[^\n]*", blank, text)


def _constant(tokens: list[Token], i: int, cfg: TlcConfig) -> int:
    kind, name, line = tokens[i]
    if kind != "name":
        raise CfgError(f"line {line}: expected a constant name, got {name!r}")
    if i + 1 >= len(tokens):
        raise CfgError(f"line {line}: {name} has no value")
    op = tokens[i + 1][1]
    if op == "<-":
        if i + 2 >= len(tokens) or tokens[i + 2][0] != "name":
            raise CfgError(f"line {line}: {name} <- expects the name of a definition")
        if tokens[i + 2][1] == "[":
            raise CfgError(f"line {line}: {name} <- [Module] substitutions are not supported")
        cfg.substitutions[name] = tokens[i + 2][1]
        cfg.lines[name] = line
        return i + 3
    if op != "=":
        raise CfgError(f"line {line}: expected = or <- after {name}, got {op!r}")
    value, j = _value(tokens, i + 2, cfg, line)
    cfg.constants[name] = value
    cfg.lines[name] = line
    return j


def _value(tokens: list[Token], i: int, cfg: TlcConfig, line: int) -> tuple[str, int]:
    if i >= len(tokens):
        raise CfgError(f"line {line}: missing value")
    kind, value, at = tokens[i]
    if kind in ("str", "int"):
        return value, i + 1
    if kind == "name":
        if value in KEYWORDS:
            raise CfgError(f"line {at}: missing value before {value}")
        if value not in ("TRUE", "FALSE") and value not in cfg.model_values:
            cfg.model_values.append(value)
        return value, i + 1
    if value == "{":
        items, i = [], i + 1
        while i < len(tokens) and tokens[i][1] != "}":
            item, i = _value(tokens, i, cfg, at)
            items.append(item)
            if i < len(tokens) and tokens[i][1] == ",":
                i += 1
        if i >= len(tokens):
            raise CfgError(f"line {at}: unclosed {{")
        return "{" + ", ".join(items) + "}", i + 1
    raise CfgError(f"line {at}: a cfg value is a number, string, model value or set, not {value!r}")
