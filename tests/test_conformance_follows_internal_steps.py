"""P3 follows each trace through a spec's internal steps: a try-lock modelled as idle -> trying ->
(spinning <-> trying) -> locked, with the natural adapter (trying and spinning are the system's
"acquiring"), fails only the AcquireLock windows that start from idle (the system takes the lock
there in one CAS, the spec needs a visible step first) and passes every other window: the
spinning steps between two logged events change nothing the trace observes, so they are steps
the trace could not see. Real TLC on the spin windows."""

from pathlib import Path

import pytest

from evaluation.inputs.contracts import parse_adapter
from evaluation.phases.conformance import check_conformance
from tests.conformance_support import spin, spin_windows

pytestmark = pytest.mark.tla

SPECS = Path(__file__).resolve().parent / "specs" / "spin"


@pytest.fixture(scope="module")
def outcome():
    adapter = parse_adapter((SPECS / "spinning_trylock.adapter.yaml").read_text(), spin())
    spec = (SPECS / "spinning_trylock.tla").read_text()
    return check_conformance(spec, spin(), spin_windows(), adapter)


def test_only_the_windows_from_idle_fail(outcome):
    assert outcome.status == "ran"
    for window in outcome.windows:
        from_idle = (
            window.action == "AcquireLock" and window.pre_state["pc"][window.actor] == "idle"
        )
        assert window.verdict == ("fail" if from_idle else "pass"), window.window_id
    counts = {a.action: (a.passed, a.total) for a in outcome.actions}
    # The original benchmark's verdict on such a spec: AcquireLock 96 of 152.
    assert counts == {"AcquireLock": (96, 152), "ReleaseLock": (152, 152)}
    assert outcome.score == 0.5


def test_the_failure_names_the_guard_and_the_trace_goes_on(outcome):
    failing = [w for w in outcome.windows if w.verdict == "fail"]
    assert {w.detail["blocking_conjunct"]["text"] for w in failing} == {'pc[t] = "trying"'}
    traces = outcome.details["traces"]
    assert sum(t["events"] for t in traces) == len(outcome.windows)
    for trace in traces:
        assert "left_trace_at" not in trace  # resynchronised after every failure
        if trace["failed"]:
            first = trace["first_failure"]
            assert first["action"] == "AcquireLock" and first["states"] > 0
            assert trace["followed"] == first["position"] - 1
