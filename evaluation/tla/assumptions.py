"""A false ASSUME explained: which assumption, and which constants it reads from whom.

TLC says only "Assumption line 18, col 8 to line 18, col 47 of module curp is false." Under
official scoring the contract pins some constants (a spec may not shrink the state space it is
judged on), so an assumption written for the spec's own smaller constants can be false, and no
adapter can change that. The submitter needs the assumption's text and the pinned values it
reads to see why.
"""

from __future__ import annotations

import re

from evaluation.tla import messages as msg
from evaluation.tla.codes import EC
from evaluation.tla.parsed import ParsedSpec, spec_of

_WHERE = re.compile(
    r"Assumption line (\d+), col (\d+) to line (\d+), col (\d+) of module (\w+) is false"
)
VALUE_CHARS = 300


def false_assumptions(messages: list[msg.Message]) -> list[msg.Message]:
    return [m for m in messages if m.code == EC.TLC_ASSUMPTION_FALSE]


def explain(
    messages: list[msg.Message],
    spec: str | ParsedSpec,
    pinned: dict[str, str],
    given: dict[str, str],
) -> str:
    """One sentence per false assumption of the spec TLC reported ("" when none): its line and
    text, and the constants it reads that the contract pins (`pinned`, the contract's values)
    or the adapter gives (`given`)."""
    false = false_assumptions(messages)
    if not false:
        return ""  # the usual case: no need to read the spec
    parsed = spec_of(spec)
    listing, spec_text = parsed.listing, parsed.text
    sentences = []
    for message in false:
        where = _WHERE.search(message.text)
        if where is None or where.group(5) != listing.module:
            continue
        line = int(where.group(1))
        found = next((a for a in listing.assumptions if a.start_line <= line <= a.end_line), None)
        text = found.text if found else _span(spec_text, where)
        read = listing.reached_from(set(found.refs)) if found else set()
        constants = [c for c in listing.constants if c in read]
        sentences.append(
            _sentence(
                line,
                " ".join(text.split()),
                {c: pinned[c] for c in constants if c in pinned},
                {c: given[c] for c in constants if c in given and c not in pinned},
            )
        )
    return " ".join(sentences)


def _sentence(line: int, text: str, pinned: dict[str, str], given: dict[str, str]) -> str:
    head = f"The spec's assumption at line {line}, `{text}`, is false"
    if pinned:
        also = f"; it also reads {_values(given)} from the adapter" if given else ""
        return (
            f"{head} for the contract's pinned constants ({_values(pinned)}){also}. The contract "
            "pins them; the adapter cannot change a pinned value."
        )
    if given:
        return (
            f"{head} for the constants the adapter gives it ({_values(given)}); they come from "
            "the adapter's `constants` (or the submitted cfg)."
        )
    return f"{head}."


def _values(constants: dict[str, str]) -> str:
    parts = []
    for name, value in constants.items():
        value = " ".join(str(value).split())
        if len(value) > VALUE_CHARS:
            value = value[: VALUE_CHARS - 3] + "..."
        parts.append(f"{name} = {value}")
    return ", ".join(parts)


def _span(spec_text: str, where: re.Match[str]) -> str:
    """The text TLC points at (1-based, inclusive columns) when the parse tree has no ASSUME
    at that line."""
    lines = spec_text.split("\n")
    first, col, last, end = (int(where.group(i)) for i in range(1, 5))
    if not 1 <= first <= last <= len(lines):
        return ""
    if first == last:
        return lines[first - 1][col - 1 : end]
    return "\n".join([lines[first - 1][col - 1 :], *lines[first : last - 1], lines[last - 1][:end]])
