"""Parse TLC `-tool` output into messages.

A spec can `Print` text that looks exactly like a tool message, so what this module returns is a
diagnostic, never a verdict: verdicts rely on exit codes, the final 2199 statistics line (printed
after the spec stopped being evaluated), nonce-tagged output or states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BLOCK = re.compile(
    r"@!@!@STARTMSG (\d+):(\d+) @!@!@\n?(.*?)@!@!@ENDMSG \1 @!@!@",
    re.DOTALL,
)

SEVERITY = {0: "info", 1: "error", 2: "tlc-bug", 3: "warning", 4: "state"}

SUCCESS = 2193
FINAL_STATS = 2199
STATE = 2217
BEHAVIOR = 2121
EVAL_ERROR = 1000
NESTED_POSITION = 2103
INVARIANT_VIOLATED = 2110
DEADLOCK = 2114
PROPERTY_VIOLATED = 2116
PARSE_FAILED = 3002
COVERAGE_START = 2201
COVERAGE_INIT = 2773
COVERAGE_ACTION = 2772
COVERAGE_END = 2202


@dataclass(frozen=True)
class Message:
    code: int
    severity: int
    text: str

    @property
    def severity_name(self) -> str:
        return SEVERITY.get(self.severity, str(self.severity))


def parse_messages(output: str) -> list[Message]:
    """Every `@!@!@STARTMSG code:severity` block in order, its text stripped."""
    return [
        Message(int(code), int(severity), text.strip())
        for code, severity, text in _BLOCK.findall(output)
    ]


def last(messages: list[Message], code: int) -> Message | None:
    for message in reversed(messages):
        if message.code == code:
            return message
    return None


def first(messages: list[Message], code: int) -> Message | None:
    return next((m for m in messages if m.code == code), None)


def errors(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.severity == 1]
