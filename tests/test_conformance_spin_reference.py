"""The spin reference spec accepts every real window, and scoring it twice gives one outcome."""

import pytest

from evaluation.phases.conformance import check_conformance
from tests.conformance_support import spin, spin_spec, spin_windows

pytestmark = pytest.mark.tla


@pytest.fixture(scope="module")
def outcomes():
    windows = spin_windows()
    return windows, [check_conformance(spin_spec(), spin(), windows) for _ in range(2)]


def test_reference_scores_one_on_every_window(outcomes):
    windows, (first, _) = outcomes
    assert first.status == "ran"
    assert first.score == 1.0
    assert len(first.windows) == len(windows) == 304
    assert {w.verdict for w in first.windows} == {"pass"}
    counts = {a.action: (a.passed, a.total) for a in first.actions}
    assert counts == {"AcquireLock": (152, 152), "ReleaseLock": (152, 152)}
    assert first.details["pooled_rate"] == 1.0


def test_reference_is_specific_and_follows_every_trace(outcomes):
    _, (first, _) = outcomes
    for action in first.actions:
        spec = action.detail["specificity"]
        assert spec["checked"] > 0
        assert spec["wrongly_accepted"] == 0
    assert first.details["auxiliary_state"]["rule"] == "followed"
    # Every trace followed from Init to its last event.
    traces = first.details["traces"]
    assert sum(t["events"] for t in traces) == len(first.windows)
    assert all(t["followed"] == t["events"] and "left_trace_at" not in t for t in traces)


def test_same_input_twice_gives_identical_outcome(outcomes):
    _, (first, second) = outcomes
    a, b = first.to_dict(), second.to_dict()
    a.pop("duration_seconds")
    b.pop("duration_seconds")
    assert a == b
