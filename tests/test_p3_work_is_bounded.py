"""P3's cost is bounded by work (the rule of docs/decisions/0004-work-bounds-not-time.md, carried
to the following engine): what TLC cannot count, one state's expensive evaluation, is bounded by
TLC's own CPU seconds over all of a check's runs. Reaching the bound is the spec's verdict on the
first attempt (the events no run decided are undecided, P3 scores them as not passed), never the
safety net's infrastructure failure. Real TLC on the spin reference made slow on purpose."""

from dataclasses import replace

import pytest

from evaluation.phases.conformance import check_conformance
from tests.conformance_support import spin, spin_windows
from tests.test_a_time_limit_is_never_a_verdict import heavy_spin

pytestmark = pytest.mark.tla


def test_an_expensive_spec_reaches_the_work_bound_and_gets_a_verdict():
    contract = spin()
    bounded = replace(contract, budgets=contract.budgets.with_("conformance", work_cpu_seconds=4))
    outcome = check_conformance(heavy_spin(21), bounded, spin_windows()[:60])
    assert outcome.status == "ran"
    bounds = outcome.details["follow_bounds"]
    assert bounds["work_bound_reached"] is True
    assert bounds["work_cpu_seconds"] == 4
    undecided = [w for w in outcome.windows if w.verdict == "undecided"]
    assert undecided and all("work bound of 4 CPU seconds" in w.reason for w in undecided)
    assert {w.verdict for w in outcome.windows} <= {"pass", "undecided"}
    assert outcome.score == 0
    # The passes printed before the stop earn nothing: the action's negatives were not read.
    for row in outcome.details["per_action"].values():
        assert row["passed"] < row["total"] or "could not be shown" in row["specificity_failure"]


def test_the_same_spec_with_room_finishes_every_window():
    contract = spin()
    outcome = check_conformance(heavy_spin(8), contract, spin_windows()[:60])
    assert outcome.details["follow_bounds"]["work_bound_reached"] is False
    assert {w.verdict for w in outcome.windows} == {"pass"}
