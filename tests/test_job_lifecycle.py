"""The scoring job: claim, phases written as they finish, finish/fail with readable reasons."""

from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract
from evaluation.results import ActionOutcome, InvariantOutcome, PhaseOutcome
from leaderboard.board.aggregate import cell_score
from leaderboard.models import ActionResult, InvariantResult, PhaseResult, Run, WindowResult
from leaderboard.scoring.jobs import evaluate_run, save_phase
from leaderboard.tasks.importing import import_corpus, sync_task
from tests.base import make_model, make_phase_result, make_run, make_task

SPIN_SPEC = (
    Path(__file__).resolve().parent.parent / "tasks_data" / "spin" / "reference" / "spin.tla"
)


def spin_task(with_windows=True):
    contract = load_contract("spin")
    task, _ = sync_task(contract)
    if with_windows:
        import_corpus(task, contract, Path(settings.SYSMOBENCH_DATA_DIR))
    return task


def results_order():
    return ("syntax", "runtime", "conformance", "invariant")


def queued_run(task, **fields):
    return make_run(make_model(), task, spec_text=SPIN_SPEC.read_text(), **fields)


@pytest.mark.tla
@pytest.mark.django_db
def test_a_requeued_run_is_scored_to_the_end_over_a_crashed_attempts_leftovers():
    task = spin_task()
    run = queued_run(task, attempts=1)
    # What a worker that died during P1 of attempt 1 left behind.
    stale = make_phase_result(run, "syntax", 0.2)
    ActionResult.objects.create(phase_result=stale, action="Leftover", passed=0, total=1)

    assert evaluate_run(run.pk) == Run.Status.FINISHED

    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED
    assert run.attempts == 2
    assert run.failure_reason == ""
    results = {r.phase: r for r in run.phase_results.all()}
    assert sorted(results) == sorted(["syntax", "runtime", "conformance", "invariant"])
    assert results["syntax"].score == 1.0
    assert not ActionResult.objects.filter(action="Leftover").exists()
    windows = WindowResult.objects.filter(phase_result=results["conformance"])
    # Each window and its symmetry probe (spin's threads are symmetric: windows/symmetry.py).
    assert windows.count() == task.corpora.get().window_count * (
        2 if load_contract("spin").traces.symmetric_actors else 1
    )
    assert set(windows.values_list("verdict", flat=True)) == {"pass"}
    invariants = InvariantResult.objects.filter(phase_result=results["invariant"])
    assert sorted(invariants.values_list("name", flat=True)) == sorted(
        i.name for i in load_contract("spin").invariants
    )
    assert set(invariants.values_list("verdict", flat=True)) == {"holds"}
    scores = {p: r.score for p, r in results.items()}
    statuses = {p: r.status for p, r in results.items()}
    assert run.overall == pytest.approx(cell_score(scores, statuses, "verified"))
    assert run.fingerprint["contract_version"] == load_contract("spin").version
    assert run.fingerprint["window_count"] == task.corpora.get().window_count
    # Each phase was stored when it finished, not all at the end.
    ordered = [results[p] for p in ("syntax", "runtime", "conformance", "invariant")]
    finished = [r.finished_at for r in ordered]
    assert finished == sorted(finished) and len(set(finished)) == 4
    assert ordered[-1].finished_at <= run.finished_at
    logged = [line.split(" ", 2)[2] for line in run.log.splitlines()]
    assert logged[0].startswith("attempt 2 started on ")
    # The reference is flagged as a near-duplicate of itself first (scoring/likeness.py).
    phases_logged = [line.split(":")[0] for line in logged[1:] if ":" in line]
    assert [p for p in phases_logged if p in results_order()][:4] == list(results_order())
    assert logged[-1] == f"finished: overall {run.overall:.3f}"

    # Safe to run twice: the finished run is not claimed again and nothing changes.
    before = list(PhaseResult.objects.filter(run=run).values("id", "score", "finished_at"))
    assert run.claim() is False
    assert evaluate_run(run.pk) == "skipped"
    assert list(PhaseResult.objects.filter(run=run).values("id", "score", "finished_at")) == before


@pytest.mark.django_db
def test_only_one_of_two_claims_wins():
    run = queued_run(spin_task(with_windows=False))
    first, second = Run.objects.get(pk=run.pk), Run.objects.get(pk=run.pk)
    assert first.claim() is True
    assert second.claim() is False
    run.refresh_from_db()
    assert (run.status, run.attempts) == (Run.Status.RUNNING, 1)


@pytest.mark.django_db
def test_an_adapter_error_fails_the_run_with_the_adapters_message():
    run = queued_run(spin_task(), adapter_text="variables:\n  noSuchVariable: 'TRUE'\n")
    assert evaluate_run(run.pk) == Run.Status.FAILED
    run.refresh_from_db()
    assert run.failure_reason.startswith("adapter error:")
    assert "noSuchVariable" in run.failure_reason
    assert not run.phase_results.exists()


@pytest.mark.django_db
def test_a_task_without_a_contract_fails_as_a_contract_error():
    run = queued_run(make_task("no-such-task"))
    evaluate_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert run.failure_reason.startswith("task contract error")


@pytest.mark.django_db
def test_traces_never_imported_fail_the_run_with_what_to_do():
    run = queued_run(spin_task(with_windows=False))
    evaluate_run(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED
    assert "import_benchmark" in run.failure_reason


@pytest.mark.django_db
def test_evaluating_a_missing_run_does_nothing():
    assert evaluate_run(987654) == "skipped"


@pytest.mark.django_db
def test_saving_a_phase_twice_overwrites_it_and_its_rows():
    run = queued_run(spin_task(with_windows=False))
    assert run.claim()
    first = PhaseOutcome(
        "invariant",
        "ran",
        0.5,
        invariants=[
            InvariantOutcome("A", "safety", "holds", credit="credited"),
            InvariantOutcome("B", "safety", "violated", "x", [{"step": 1}], credit="failed"),
        ],
        actions=[ActionOutcome("Act", 1, 2)],
    )
    save_phase(run, first)
    again = PhaseOutcome(
        "invariant",
        "ran",
        1.0,
        invariants=[InvariantOutcome("A", "safety", "holds", credit="credited")],
    )
    result = save_phase(run, again)
    assert PhaseResult.objects.filter(run=run).count() == 1
    assert PhaseResult.objects.get(run=run).score == 1.0
    assert list(result.invariant_results.values_list("name", flat=True)) == ["A"]
    assert not result.action_results.exists()


@pytest.mark.tla
@pytest.mark.django_db
def test_a_spec_whose_only_action_asserts_false_is_scored_not_failed_as_a_scorer_problem():
    # Issue 10, hole 9: the run ended FAILED with "TypeError: 'NoneType' object is not iterable
    # ... a scorer problem" (TLC printed no coverage once the failing action was disabled).
    spec = SPIN_SPEC.read_text().replace(
        "Next == \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)",
        'Boom(t) == Assert(FALSE, "boom") /\\ StartLock(t)\nNext == \\E t \\in Threads : Boom(t)',
    )
    assert "Boom(t)" in spec
    run = make_run(make_model(), spin_task(), spec_text=spec)
    assert evaluate_run(run.pk) == Run.Status.FINISHED
    run.refresh_from_db()
    runtime = run.phase_results.get(phase="runtime")
    assert (runtime.status, runtime.score) in {("ran", 0.0), ("error", 0.0), ("error", None)}
    assert "boom" in str(runtime.details) + "".join(
        str(a.detail) for a in runtime.action_results.all()
    )
    assert run.phase_results.get(phase="conformance").status == "skipped"
