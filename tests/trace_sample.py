"""The first few whole traces of a task, for the tests that score a defective spec.

A defective spec fails many events, and P3 follows a trace past each failure with one more TLC
run (docs/decisions/0007-p3-picks-the-trace-up-again.md): a mutant scored on all of mutex's 20
traces took 377 s in CI, 21 runs. A defect shows in every trace that runs the action it breaks,
so the tests of mutants, attacks and the corpus take a few traces whole (never a cut trace:
following starts at Init). The references still pass every window of every trace, and
`bench/fidelity.py` scores the corpus on all of them.
"""

from __future__ import annotations

FEW_TRACES = 3


def first_traces(windows: list[dict], count: int = FEW_TRACES) -> list[dict]:
    """The windows of the task's first `count` traces (by id), in their order."""
    kept = set(sorted({w["trace_id"] for w in windows})[:count])
    return [w for w in windows if w["trace_id"] in kept]
