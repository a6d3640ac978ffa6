"""A state explosion that fills TLC's metadir ends quickly with a clear non-pass status."""

import pytest

from evaluation.inputs.contracts import make_contract
from evaluation.phases.runtime import check_runtime
from evaluation.tla.sandbox import Limits, run_tlc

pytestmark = pytest.mark.tla

# Every step appends a fat record: BFS's state queue spills to the metadir within seconds.
BOOM = r"""---- MODULE Boom ----
EXTENDS Naturals, Sequences
VARIABLE s
Init == s = <<>>
Next == \E i \in 1..50 :
          s' = Append(s, [a |-> i, b |-> <<i, i, i, i>>, c |-> "padding-padding-padding"])
====
"""
WALL = 60


def test_full_scratch_is_an_error_naming_the_cap_within_the_budget():
    run = run_tlc(
        {"Boom": BOOM},
        "Boom",
        "INIT Init\nNEXT Next\n",
        ["-deadlock"],
        Limits(wall_seconds=WALL, cpu_seconds=WALL, heap_mb=256, scratch_mb=4),
    )
    assert run.status == "error", (run.status, run.note, run.output[-1500:])
    # The cap, not the wall clock (which would make the status "timeout"), ended the run.
    assert "scratch space cap" in run.note


def test_runtime_phase_reports_the_exhausted_scratch_as_an_error():
    contract = make_contract(
        module="Boom",
        budgets={
            "runtime": {
                "wall_seconds": WALL,
                "depth": 1000,
                "max_states": 100_000_000,
                "scratch_mb": 4,
                "heap_mb": 256,
            }
        },
    )
    outcome = check_runtime(BOOM, contract)
    assert (outcome.status, outcome.score) == ("error", 0.0)
    error = outcome.details["error"]
    assert "No space left on device" in error["message"]
    assert "scratch space cap (4 MB)" in error["note"]
