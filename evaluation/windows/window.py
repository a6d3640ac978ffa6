"""The canonical transition window: what every cutter produces and P3 checks.

The same object is a line of a windows file (`evaluation.cli.read_windows`), a `TraceWindow` row
of the site (`leaderboard.tasks.importing.canonical_windows`) and an element of `score_spec`'s
`windows` (docs/ARCHITECTURE.md, "Interfaces"). It imports nothing of the project, so the
phases and the site can name the type.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

# Schema variable -> its JSON value in one state of a trace.
State = dict[str, Any]
Side = Literal["pre_state", "post_state"]
SIDES: tuple[Side, Side] = ("pre_state", "post_state")


class Window(TypedDict):
    window_id: str  # unique in its corpus
    trace_id: str
    action: str  # the contract's target action the event maps to
    event: str  # the trace's own name of the step
    actor: str
    pre_state: State
    post_state: State
    # The message the step received (JSON), when the trace shows one.
    input: NotRequired[Any]
