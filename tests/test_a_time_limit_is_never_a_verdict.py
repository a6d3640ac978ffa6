"""A time limit is never a verdict (docs/decisions/0004-work-bounds-not-time.md): every check is
bounded by work, and a phase's wall-clock limit is only a safety net. The attack is a spec that is
slow on purpose (an expensive guard evaluated in every state), or a machine so loaded that it looks
slow: reaching the net must stop the scoring with InfrastructureFailure (the job retries, then says
"could not be scored"), never score the phase 0 or keep what it decided so far. The same spec with
room to finish gets its real verdict. Real SANY and TLC, no mocks."""

from dataclasses import replace

import pytest

from evaluation.pipeline import score_spec
from evaluation.results import InfrastructureFailure
from leaderboard.models import Run
from leaderboard.scoring import backends
from leaderboard.scoring.jobs import evaluate_run
from tests.base import make_model, make_run
from tests.conformance_support import spin, spin_spec, spin_windows
from tests.test_job_lifecycle import spin_task

pytestmark = pytest.mark.tla

NOT_A_VERDICT = "not a verdict on your spec"


def heavy_spin(exponent: int) -> str:
    """The spin reference with a guard that is always TRUE but costs 2^exponent evaluations in
    every state it is asked in (a recursive function is not memoised; reading `lockState`
    keeps TLC from evaluating it once as a constant)."""
    heavy = (
        f"Heavy == LET F[n \\in 0..{exponent}] == "
        'IF n = 0 THEN (IF lockState = "locked" THEN 1 ELSE 2) ELSE F[n-1] + F[n-1] '
        f"IN F[{exponent}] > 0\n\n"
    )
    text = spin_spec().replace("EXTENDS TLC, FiniteSets", "EXTENDS TLC, FiniteSets, Naturals")
    text = text.replace("StartLock(t) ==\n", heavy + "StartLock(t) ==\n  /\\ Heavy\n", 1)
    assert "/\\ Heavy" in text  # the reference still has the shape this edit expects
    return text


def hurried(phase: str, **nets: float):
    contract = spin()
    return replace(contract, budgets=contract.budgets.with_(phase, **nets))


def scored_phases(spec: str, contract, phases: list[str]) -> list[str]:
    seen: list[str] = []
    score_spec(
        spec, contract, spin_windows(), on_phase=lambda o: seen.append(o.phase), phases=phases
    )
    return seen


def test_p2_at_its_safety_net_stops_the_scoring_instead_of_scoring_p2_zero():
    seen: list[str] = []
    with pytest.raises(InfrastructureFailure) as failure:
        score_spec(
            heavy_spin(16),
            hurried("runtime", wall_seconds=1),
            spin_windows(),
            on_phase=lambda o: seen.append(o.phase),
            phases=["syntax", "runtime"],
        )
    assert "the runtime check reached its safety-net time limit of 1 s" in str(failure.value)
    assert NOT_A_VERDICT in str(failure.value)
    assert seen == ["syntax"]  # no P2 outcome, not even a 0, was reported


def test_p3_at_its_safety_net_stops_the_scoring_instead_of_scoring_p3_zero():
    with pytest.raises(InfrastructureFailure) as failure:
        scored_phases(heavy_spin(16), hurried("conformance", wall_seconds=2), ["conformance"])
    assert "the conformance check reached its safety-net time limit of 2 s" in str(failure.value)
    assert NOT_A_VERDICT in str(failure.value)


def test_p4_at_its_safety_net_stops_the_scoring_instead_of_failing_the_invariant():
    # The joint net (1 s) only sends the invariants to be checked alone; each alone has 2 s,
    # which one state-by-state check of the heavy guard cannot finish in: that is no verdict.
    contract = hurried("invariant", wall_seconds=1, per_invariant_seconds=2)
    with pytest.raises(InfrastructureFailure) as failure:
        scored_phases(heavy_spin(16), contract, ["invariant"])
    assert "the invariant check reached its safety-net time limit of 2 s" in str(failure.value)
    assert NOT_A_VERDICT in str(failure.value)


def test_with_room_to_finish_the_same_slow_spec_gets_its_real_verdicts():
    report = score_spec(heavy_spin(13), spin(), spin_windows())
    assert {p: o.status for p, o in report.outcomes.items()} == dict.fromkeys(
        ("syntax", "runtime", "conformance", "invariant"), "ran"
    )
    assert {i.verdict for i in report.outcomes["invariant"].invariants} == {"holds"}
    assert report.overall == pytest.approx(1.0)
    # What the verdicts were bounded by is on record; the nets are not part of it.
    bounds = report.fingerprint["work_bounds"]
    assert bounds["invariant"]["max_states"] == spin().budget("runtime", "max_states")
    assert "wall_seconds" not in bounds["conformance"]


@pytest.mark.django_db
def test_the_run_page_says_the_run_could_not_be_scored_and_it_gets_no_score(monkeypatch, settings):
    task = spin_task()
    last = settings.SCORING_MAX_ATTEMPTS - 1
    run = make_run(make_model(), task, spec_text=heavy_spin(16), attempts=last)
    real = backends.surface.score_spec

    def with_a_tiny_p2_net(spec, contract, *args, **kwargs):
        tight = replace(contract, budgets=contract.budgets.with_("runtime", wall_seconds=1))
        return real(spec, tight, *args, **kwargs)

    monkeypatch.setattr(backends.surface, "score_spec", with_a_tiny_p2_net)
    assert evaluate_run(run.pk) == Run.Status.FAILED
    run.refresh_from_db()
    assert run.overall is None
    assert run.failure_reason.startswith(
        "could not be scored: the runtime check reached its safety-net time limit of 1 s"
    )
    assert not run.phase_results.filter(phase="runtime").exists()  # no P2 of 0 either
