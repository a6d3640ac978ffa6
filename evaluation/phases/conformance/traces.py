"""Windows -> the traces P3 follows: per trace, its events in order, and what each gap allows.

A trace is the windows of one `trace_id`, in the order the cutter yields them (every cutter in
`evaluation/windows/` yields a trace's windows in the order of its log; none gives a separate
sequence number). Each window is one event: a step of its mapped action. Between two events the
trace says either that nothing it observes happened (a *quiet* gap: the previous event's
post-state and this event's pre-state agree on every variable, or key, both give) or that
something did (a *free* gap: events of actions no target maps, or events a windows-only corpus
left out). The gap before a trace's first event is free: no trace is known to start at the
system's initial state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluation.windows.window import State, Window


@dataclass(frozen=True)
class Event:
    window: int  # index into the phase's windows
    quiet: bool  # the gap before it leaves the observed projection unchanged
    # events the trace logged between the previous event and this one that are no window
    # (their `seq` numbers say how many; 0 where the cutter gives no `seq`)
    logged: int = 0


@dataclass(frozen=True)
class Trace:
    trace_id: str
    events: tuple[Event, ...]


def traces_of(windows: list[Window], valid: list[bool]) -> list[Trace]:
    """The valid windows grouped by trace, in corpus order."""
    grouped: dict[str, list[int]] = {}
    for index, (window, ok) in enumerate(zip(windows, valid, strict=True)):
        if ok:
            grouped.setdefault(str(window.get("trace_id", "")), []).append(index)
    out = []
    for trace_id, members in grouped.items():
        events = [Event(members[0], quiet=False)]
        for before, index in zip(members, members[1:], strict=False):
            post, pre = windows[before]["post_state"], windows[index]["pre_state"]
            events.append(Event(index, agree(post, pre), _between(windows[before], windows[index])))
        out.append(Trace(trace_id, tuple(events)))
    return out


def agree(a: State, b: State) -> bool:
    """Whether two window states agree on every variable (or key of a function) both give."""
    for var in set(a) & set(b):
        x, y = a[var], b[var]
        if isinstance(x, dict) and isinstance(y, dict) and set(x) != set(y):
            if any(_differ(x[k], y[k]) for k in set(x) & set(y)):
                return False
        elif _differ(x, y):
            return False
    return True


def _differ(x: Any, y: Any) -> bool:
    return bool(x != y or type(x) is not type(y))


def _between(before: Window, event: Window) -> int:
    a, b = before.get("seq"), event.get("seq")
    if isinstance(a, int) and isinstance(b, int) and b > a:
        return b - a - 1
    return 0
