"""TLC's counterexample, read from its trace messages into states."""

from __future__ import annotations

import re

from evaluation.details import CounterexampleState
from evaluation.tla import messages as msg
from evaluation.tla.codes import EC

_STATE_HEAD = re.compile(r"^(\d+):\s*(.*)$")
_VAR_LINE = re.compile(r"^(?:/\\\s+)?([A-Za-z_][A-Za-z0-9_]*)\s+=\s?(.*)$")


def parse_trace(messages: list[msg.Message]) -> list[CounterexampleState]:
    """TLC's error trace as states `{step, action, vars: {var: value text}}`.

    A lasso ends with `{step, action, back_to: k}` (TLC_BACK_TO_STATE: the behaviour loops back
    to state k) and an infinite stutter with `{step, action: "Stuttering", stuttering: True}`
    (TLC_STATE_PRINT3).
    """
    start = max(
        (
            i
            for i, m in enumerate(messages)
            if m.code in (EC.TLC_BEHAVIOR_UP_TO_THIS_POINT, EC.TLC_COUNTER_EXAMPLE)
        ),
        default=-1,
    )
    states: list[CounterexampleState] = []
    for message in messages[start + 1 :]:
        if message.code == EC.TLC_STATE_PRINT2:
            states.append(_parse_state(message.text))
        elif message.code == EC.TLC_BACK_TO_STATE:
            head = _STATE_HEAD.match(message.text.strip())
            label = message.text.split("Back to state:", 1)[-1].strip()
            states.append(
                {
                    "step": len(states) + 1,
                    "action": _action_name(label),
                    "location": label,
                    "back_to": int(head.group(1)) if head else None,
                }
            )
        elif message.code == EC.TLC_STATE_PRINT3:
            states.append({"step": len(states) + 1, "action": "Stuttering", "stuttering": True})
    return states


def _parse_state(text: str) -> CounterexampleState:
    lines = text.strip().splitlines()
    head = _STATE_HEAD.match(lines[0]) if lines else None
    step = int(head.group(1)) if head else 0
    label = head.group(2).strip() if head else ""
    action = _action_name(label)
    variables: dict[str, str] = {}
    current = None
    for line in lines[1:]:
        match = _VAR_LINE.match(line)
        if match and (line.startswith("/\\") or current is None):
            current = match.group(1)
            variables[current] = match.group(2).strip()
        elif current is not None and line.strip():
            variables[current] += "\n" + line.rstrip()
    return {"step": step, "action": action, "location": label, "vars": variables}


def _action_name(label: str) -> str:
    """`<AcquireLock line 7, col 19 to ... of module spin>` -> `AcquireLock`."""
    return label.strip("<>").split(" line ", 1)[0].strip()
