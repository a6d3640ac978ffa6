"""How far the spec followed each trace (`details["traces"]`): the events it took, the first it
could not take and the conjunct that was false there, where it was resynchronised or picked the
trace up again at a later event, and where it left the trace for good."""

from __future__ import annotations

from collections.abc import Sequence

from evaluation.details import BlockingConjunct, TraceFollowed
from evaluation.phases.conformance.follow import Followed
from evaluation.phases.conformance.traces import Trace
from evaluation.results import WindowOutcome
from evaluation.windows.window import Window


def trace_rows(
    traces: list[Trace],
    windows: list[Window],
    outcomes: list[WindowOutcome],
    number: dict[int, int],
    followed: Followed,
    blocked: dict[int, BlockingConjunct],
) -> list[TraceFollowed]:
    rows: list[TraceFollowed] = []
    window_of = {e: w for w, e in number.items()}
    for k, trace in enumerate(traces):
        indexes = [ev.window for ev in trace.events]
        verdicts = [outcomes[w].verdict for w in indexes]
        row: TraceFollowed = {
            "trace_id": trace.trace_id,
            "events": len(indexes),
            "passed": verdicts.count("pass"),
            "failed": verdicts.count("fail"),
            "undecided": verdicts.count("undecided"),
            "errors": verdicts.count("error"),
            "followed": _prefix(verdicts),
            "resynchronised_at": [
                _window_id(windows, w) for w in indexes if number[w] in followed.resynced.get(k, [])
            ],
            "picked_up_at": [
                {
                    "after": _window_id(windows, window_of[e]),
                    "at": _window_id(windows, window_of[f]),
                }
                for e, f in followed.picked_up.get(k, [])
            ],
            "narrowed_at": [
                {"window_id": _window_id(windows, window_of[e]), "steps": steps}
                for e, steps in sorted(followed.narrowed.get(k, {}).items())
            ],
        }
        first = next((w for w in indexes if outcomes[w].verdict in ("fail", "error")), None)
        if first is not None:
            row["first_failure"] = {
                "window_id": _window_id(windows, first),
                "position": indexes.index(first) + 1,
                "action": outcomes[first].action,
                "reason": outcomes[first].reason,
                "states": len(followed.frontier.get(number[first], [])),
            }
            if first in blocked:
                row["first_failure"]["blocking_conjunct"] = blocked[first]
        if k in followed.left:
            event, why = followed.left[k]
            window = indexes[[number[w] for w in indexes].index(event)]
            row["left_trace_at"] = {
                "window_id": _window_id(windows, window),
                "position": indexes.index(window) + 1,
                "reason": why,
            }
        rows.append(row)
    return rows


def _prefix(verdicts: Sequence[str]) -> int:
    """Events taken before the first that was not."""
    for i, verdict in enumerate(verdicts):
        if verdict != "pass":
            return i
    return len(verdicts)


def _window_id(windows: list[Window], index: int) -> str:
    return str(windows[index].get("window_id", index))
