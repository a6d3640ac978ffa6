"""What the corpus modules (`tests/test_fidelity_corpus_<family>.py`) check, shared by them.

The corpus is split into modules by task family so that `bin/test`'s two processes share it
(`--dist loadfile` runs a module in one process); docs/decisions/0032-suite-wall-time.md.
Each spec is scored once per process: `scored(name)` memoises the report, so a module's
bug-specific tests read the report its parametrized test made instead of running TLC again.
"""

from __future__ import annotations

import functools

import pytest

from tests.fidelity.corpus import CORPUS, FIDELITY, score
from tests.trace_sample import FEW_TRACES

MARKS = [
    pytest.mark.tla,
    pytest.mark.skipif(not FIDELITY.is_dir(), reason="fidelity corpus not present"),
]
BY_NAME = {entry.name: entry for entry in CORPUS}
P3_WORK_SECONDS = 60
# Where the spec itself stops short of P4, and why (not the scorer's doing).
STOPS_BEFORE_P4 = {
    # The spec ASSUMEs every command is a [key: Keys] record; the contract pins commands that
    # also carry an id, so TLC reports the assumption false before exploring anything.
    "curp (bug)": "runtime",
}


@functools.cache
def scored(name: str):
    """The corpus spec's report, scored on first use in this process (real TLC, minutes), on
    the task's first few traces (tests/trace_sample.py): these tests ask that every phase
    reaches its verdict and what P2 and P4 find, not how much of each trace P3 follows
    (tests/test_fidelity_adapters_decide_windows.py and bench/fidelity.py do). P3's CPU work
    bound is lowered for the same reason: the bug specs spent the task's whole 300 s in it."""
    return score(BY_NAME[name], traces=FEW_TRACES, p3_work=P3_WORK_SECONDS)


def _internal(outcome) -> bool:
    return outcome.status == "error" and bool(outcome.details.get("internal"))


def goes_through_the_phases_without_a_scorer_error(name: str) -> None:
    entry = BY_NAME[name]
    assert entry.adapter_path.exists(), f"no adapter for {name}"
    report = scored(name)
    assert not [p for p, o in report.outcomes.items() if _internal(o)]
    stop = STOPS_BEFORE_P4.get(name)
    if stop is None:
        assert report.outcomes["invariant"].status != "skipped", report.outcomes["runtime"].details
        assert report.outcomes["syntax"].score == 1.0
        # A refused adapter (e.g. no mapping for an action once the task has traces) is an
        # `error` without `internal`: the corpus adapters must still reach a P3 verdict.
        conformance = report.outcomes["conformance"]
        assert conformance.status != "error", conformance.details
    else:
        assert report.outcomes[stop].score < 1.0
        assert report.outcomes["invariant"].status == "skipped"


def violated(report, invariant: str):
    """TLC's counterexample for `invariant`, which must be violated."""
    found = {i.name: i for i in report.outcomes["invariant"].invariants}[invariant]
    assert found.verdict == "violated", found.reason
    assert found.counterexample, "a violation comes with TLC's counterexample"
    return found.counterexample
