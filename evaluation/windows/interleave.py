"""One trace from several files that each hold a chronological selection of its events.

The etcd fork publishes one scenario as node-first windows of one action and, apart, per-spec
windows of the others (`windows_<Action>.ndjson`), each file in the order of the run but with no
timestamp to merge them by. P3 follows a trace's events in order
(docs/decisions/0006-p3-follows-traces.md), so the cutter merges them here: each file's order
is kept, and the next event is the head (among the files) whose pre-state differs least from
the state the trace is in (the post-state of the event placed last; at the start, the head that
shows the least progress). Ties go to the file listed first. Only the corpus decides the order,
never a spec.
"""

from __future__ import annotations

from typing import Any

Window = dict[str, Any]


def interleave(sequences: list[list[Window]]) -> list[Window]:
    heads = [0] * len(sequences)
    out: list[Window] = []
    current: dict[str, Any] | None = None
    while True:
        ready = [k for k, seq in enumerate(sequences) if heads[k] < len(seq)]
        if not ready:
            return out

        chosen = min(ready, key=lambda k: _rank(current, sequences[k][heads[k]]["pre_state"], k))
        window = sequences[chosen][heads[chosen]]
        heads[chosen] += 1
        out.append(window)
        current = window["post_state"]


def _rank(current: dict[str, Any] | None, pre: dict[str, Any], k: int) -> tuple[int, int, int]:
    near = _distance(current, pre) if current is not None else _progress(pre)
    return (near, _progress(pre), k)


def _distance(a: dict[str, Any], b: dict[str, Any]) -> int:
    """Slots (variables, or keys of per-node variables) where two states differ."""
    total = 0
    for var in a.keys() | b.keys():
        x, y = a.get(var), b.get(var)
        if isinstance(x, dict) and isinstance(y, dict):
            total += sum(1 for k in x.keys() | y.keys() if x.get(k) != y.get(k))
        else:
            total += x != y
    return total


def _progress(state: dict[str, Any]) -> int:
    """The sum of a state's numbers (terms, log lengths, commit indexes): how far a run is."""
    total = 0
    for value in state.values():
        for v in value.values() if isinstance(value, dict) else [value]:
            if isinstance(v, int) and not isinstance(v, bool):
                total += v
    return total
