"""A run belongs to its newest attempt: an older attempt that finishes late writes nothing.

Issue 10, hole 8: the reaper re-queued a slow live run, and the first attempt, finishing after
the second, overwrote its result. Every write after the claim is conditional on the run still
being RUNNING under the same attempt; the loser learns it lost and stops scoring.
"""

from pathlib import Path

import pytest
from django.conf import settings

from evaluation import surface
from evaluation.inputs.contracts import load_contract
from evaluation.results import ActionOutcome, PhaseOutcome
from leaderboard.models import AttemptLost, PhaseResult, Run
from leaderboard.scoring import jobs
from leaderboard.tasks.importing import import_corpus, sync_task
from tests.base import make_model, make_run

SPIN_SPEC = Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla"


def spin_run() -> Run:
    contract = load_contract("spin")
    task, _ = sync_task(contract)
    import_corpus(task, contract, Path(settings.SYSMOBENCH_DATA_DIR))
    return make_run(make_model(), task, spec_text=SPIN_SPEC.read_text())


def take_over(run: Run) -> Run:
    """What the reaper and a second worker do to a run attempt `run.attempts` still scores."""
    current = Run.objects.get(pk=run.pk)
    assert current.requeue()
    assert current.claim()
    return current


def outcome(phase: str, score: float, action: str) -> PhaseOutcome:
    return PhaseOutcome(phase, "ran", score, actions=[ActionOutcome(action, 1, 1)])


@pytest.mark.django_db
def test_two_attempts_finishing_in_the_wrong_order_keep_the_newer_result():
    first = spin_run()
    assert first.claim() and first.attempts == 1
    jobs.save_phase(first, outcome("syntax", 0.2, "OldAttempt"))
    second = take_over(first)
    assert second.attempts == 2

    # The second attempt ends first ...
    jobs.save_phase(second, outcome("syntax", 1.0, "NewAttempt"))
    assert second.finish(0.9, {"attempt": 2})
    # ... then the first one, late, tries to write its phase and its end.
    with pytest.raises(AttemptLost):
        jobs.save_phase(first, outcome("syntax", 0.3, "OldAttempt"))
    assert first.finish(0.1, {"attempt": 1}) is False
    assert first.fail("too late") is False

    run = Run.objects.get(pk=first.pk)
    assert (run.status, run.overall, run.fingerprint) == (Run.Status.FINISHED, 0.9, {"attempt": 2})
    assert run.failure_reason == ""
    syntax = PhaseResult.objects.get(run=run, phase="syntax")
    assert syntax.score == 1.0
    assert list(syntax.action_results.values_list("action", flat=True)) == ["NewAttempt"]


@pytest.mark.django_db
def test_an_attempt_cannot_end_a_run_that_was_requeued_and_not_yet_claimed_again():
    first = spin_run()
    assert first.claim()
    assert Run.objects.get(pk=first.pk).requeue()
    with pytest.raises(AttemptLost):
        jobs.save_phase(first, outcome("syntax", 1.0, "OldAttempt"))
    assert first.finish(1.0, {}) is False
    run = Run.objects.get(pk=first.pk)
    assert (run.status, run.overall) == (Run.Status.QUEUED, None)
    assert not run.phase_results.exists()


@pytest.mark.django_db
def test_the_reaper_cannot_requeue_an_attempt_that_is_no_longer_the_current_one():
    first = spin_run()
    assert first.claim()
    take_over(first)
    assert first.requeue() is False  # a reaper holding attempt 1 in memory
    run = Run.objects.get(pk=first.pk)
    assert (run.status, run.attempts) == (Run.Status.RUNNING, 2)


@pytest.mark.tla
@pytest.mark.django_db
def test_an_attempt_that_lost_its_run_stops_scoring_and_writes_nothing(monkeypatch):
    """A real scoring job, taken over (re-queued, claimed and finished by attempt 2) while its
    first phase was being scored: it stops before the next phase and leaves attempt 2's result."""
    run = spin_run()
    scored = []
    real_score_spec = surface.score_spec

    def score_spec_taken_over_after_p1(*args, on_phase, **kwargs):
        def on_phase_after_takeover(result):
            scored.append(result.phase)
            if result.phase == "syntax":
                newer = take_over(Run.objects.get(pk=run.pk))
                newer.finish(0.9, {"attempt": 2})
            on_phase(result)

        return real_score_spec(*args, on_phase=on_phase_after_takeover, **kwargs)

    # The wrapper only injects the concurrent takeover; the scorer and the writes are real.
    monkeypatch.setattr(surface, "score_spec", score_spec_taken_over_after_p1)
    assert jobs.evaluate_run(run.pk) == jobs.LOST

    assert scored == ["syntax"]  # no phase after the loss was scored
    run.refresh_from_db()
    assert (run.status, run.attempts, run.overall) == (Run.Status.FINISHED, 2, 0.9)
    assert run.fingerprint == {"attempt": 2}
    assert not run.phase_results.exists()
    assert "attempt 1 stopped: the run was taken from it" in run.log
    assert "finished: overall" not in run.log
