"""No phase can abort the run: a phase that raises ends as `error` with the reason, and the
other phases still run where gating allows."""

import pytest

from evaluation import pipeline
from evaluation.phases import conformance
from tests.conformance_support import spin, spin_spec, spin_windows

pytestmark = pytest.mark.tla


def test_a_crashing_phase_is_an_error_and_the_run_goes_on(monkeypatch):
    def explode(*args, **kwargs):
        raise KeyError("a scorer bug")

    monkeypatch.setattr(conformance, "check_conformance", explode)
    seen = []
    report = pipeline.score_spec(spin_spec(), spin(), spin_windows()[:4], on_phase=seen.append)
    p3 = report.outcomes["conformance"]
    assert p3.status == "error" and p3.score == 0.0
    assert "internal error in the conformance phase: KeyError" in p3.details["error"]
    # The phases before and after it ran and kept their verdicts.
    assert [o.phase for o in seen] == list(pipeline.PHASES)
    assert report.outcomes["runtime"].score == 1.0
    assert report.outcomes["invariant"].status == "ran"
    assert report.overall == pytest.approx(0.15 + 0.15 + 0.35 * report.outcomes["invariant"].score)
