"""Parse TLC `-tool` output into messages.

A spec can `Print` text that looks exactly like a tool message, so what this module returns is a
diagnostic, never a verdict: verdicts rely on exit codes, the final statistics line (TLC_STATS,
printed after the spec stopped being evaluated), nonce-tagged output or states. The codes and
severities are named in `evaluation/tla/codes.py`.

Still, the parser only takes markers where TLC writes them: at the start of a line, or for a
message nested inside another (GENERAL wraps the evaluation error it reports) right after `: ` at
the start of a line. `Print` output always starts with a value (`"`, `<<`, `{`, a digit...) and
escapes newlines inside strings, so a forged marker inside it stays plain data. A nested message
is returned on its own and its text (without markers) is also part of its parent's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evaluation.tla.codes import MP

_MARKER = re.compile(
    r"^(: )?@!@!@(?:STARTMSG (\d+):(\d+)|ENDMSG (\d+)) @!@!@[ \t]*(?:\n|$)", re.MULTILINE
)

SEVERITY = {
    MP.NONE: "info",
    MP.ERROR: "error",
    MP.TLCBUG: "tlc-bug",
    MP.WARNING: "warning",
    MP.STATE: "state",
}


@dataclass(frozen=True)
class Message:
    code: int
    severity: int
    text: str

    @property
    def severity_name(self) -> str:
        return SEVERITY.get(self.severity, str(self.severity))


def parse_messages(output: str) -> list[Message]:
    """Every complete `@!@!@STARTMSG code:severity` block, in the order the blocks start."""
    slots: list[Message | None] = []
    stack: list[_Open] = []
    position = 0
    for marker in _MARKER.finditer(output):
        if stack:
            stack[-1].parts.append(output[position : marker.start()])
        position = marker.end()
        nested, code, severity, end_code = marker.groups()
        if code is not None:
            if nested and stack:
                stack[-1].parts.append(": ")
            stack.append(_Open(int(code), int(severity), len(slots), []))
            slots.append(None)
        elif any(frame.code == int(end_code) for frame in stack):
            while True:
                frame = stack.pop()
                text = "".join(frame.parts)
                if stack:
                    stack[-1].parts.append(text)
                if frame.code == int(end_code):
                    slots[frame.slot] = Message(frame.code, frame.severity, text.strip())
                    break
        elif stack:  # an end marker of nothing open is data
            stack[-1].parts.append(marker.group(0))
    return [m for m in slots if m is not None]


@dataclass
class _Open:
    code: int
    severity: int
    slot: int
    parts: list[str]


def last(messages: list[Message], code: int) -> Message | None:
    for message in reversed(messages):
        if message.code == code:
            return message
    return None


def first(messages: list[Message], code: int) -> Message | None:
    return next((m for m in messages if m.code == code), None)


def errors(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.severity == MP.ERROR]


# The lines of GENERAL's generic preamble to an evaluation error, as TLC prints them one per
# line; a reason shown to a submitter starts after them.
PREAMBLE_LINES = (
    "TLC threw an unexpected exception",
    "This was probably caused",
    "See the User Output",
    "The exception was a",
)


def is_preamble(line: str) -> bool:
    return line.startswith(PREAMBLE_LINES)


# The generic preamble of GENERAL when evaluation raised an exception: it points at a
# console the submitter never sees, and hides the exception's own text behind four lines.
_EXCEPTION_PREAMBLE = re.compile(
    r"TLC threw an unexpected exception\.\s*"
    r"This was probably caused by an error in the spec or model\.\s*"
    r"See the User Output or TLC Console for clues to what happened\.\s*"
    r"(?:The exception was an? )?([\w.$]+)\s*\n:\s*"
)


def plain_text(message: Message) -> str:
    """A message's text with TLC's generic exception preamble reduced to the exception and what
    it says (`java.lang.RuntimeException: Attempted to check equality of record ...`)."""
    return _EXCEPTION_PREAMBLE.sub(r"\1: ", message.text, count=1)


_LINE_PATTERNS = (
    re.compile(r"\bline (\d+), col(?:umn)? (\d+)"),
    re.compile(r"\bat line (\d+)"),
)


def lines_in(text: str) -> list[int]:
    """Line numbers a SANY/TLC message points at, first mention first."""
    found: list[int] = []
    for pattern in _LINE_PATTERNS:
        found.extend(int(m.group(1)) for m in pattern.finditer(text or ""))
    return list(dict.fromkeys(found))
