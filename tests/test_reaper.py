"""The reaper: runs whose worker died are re-queued (bounded attempts) or failed with a reason."""

import os
import time
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from evaluation.inputs.contracts import load_contract
from leaderboard.models import PhaseResult, Run
from leaderboard.scoring.queueing import job_id
from leaderboard.scoring.reaper import reap_stale_runs
from leaderboard.tasks.importing import import_corpus, sync_task
from tests.base import make_model, make_run, make_task
from tests.rq_worker import finish_worker, kill_worker, start_worker, wait_for

SPIN_SPEC = (
    Path(__file__).resolve().parent.parent / "tasks_data" / "spin" / "reference" / "spin.tla"
)
NO_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1: Redis "does not answer"


def running_run(started_ago: timedelta, attempts: int = 1) -> Run:
    run = make_run(make_model(), make_task("spin"))
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING, started_at=timezone.now() - started_ago, attempts=attempts
    )
    run.refresh_from_db()
    return run


@pytest.fixture
def without_redis(settings):
    settings.RQ_QUEUES = {"evaluation": {"URL": NO_REDIS}}
    settings.SCORING_STALE_AFTER_SECONDS = 600
    settings.SCORING_MAX_ATTEMPTS = 3


@pytest.mark.django_db
def test_a_stale_run_with_attempts_left_is_requeued_and_enqueued(
    without_redis, django_capture_on_commit_callbacks
):
    run = running_run(timedelta(minutes=11), attempts=2)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        outcome = reap_stale_runs()
    run.refresh_from_db()
    assert outcome["requeued"] == [run.pk]
    assert (run.status, run.started_at) == (Run.Status.QUEUED, None)
    assert len(callbacks) == 1  # enqueue_run, after commit


@pytest.mark.django_db
def test_a_stale_run_out_of_attempts_fails_with_a_reason(without_redis):
    run = running_run(timedelta(minutes=11), attempts=3)
    outcome = reap_stale_runs()
    run.refresh_from_db()
    assert outcome["failed"] == [run.pk]
    assert run.status == Run.Status.FAILED
    assert "3 time(s)" in run.failure_reason


@pytest.mark.django_db
def test_a_recent_run_is_left_alone_when_redis_cannot_say_otherwise(without_redis):
    run = running_run(timedelta(minutes=1))
    assert reap_stale_runs() == {"requeued": [], "failed": [], "reenqueued": []}
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING


@pytest.mark.django_db
def test_the_now_argument_decides_what_is_stale(without_redis):
    run = running_run(timedelta(minutes=1), attempts=3)
    reap_stale_runs(now=timezone.now() + timedelta(hours=1))
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED


@pytest.mark.django_db
def test_the_command_reports_what_it_did(without_redis):
    run = running_run(timedelta(hours=2), attempts=3)
    out = StringIO()
    call_command("reap_runs", stdout=out)
    assert f"failed: {run.pk}" in out.getvalue()


@pytest.mark.redis
@pytest.mark.django_db
def test_a_recent_run_whose_rq_job_failed_is_requeued(rq_redis, django_capture_on_commit_callbacks):
    import django_rq

    run = running_run(timedelta(seconds=5))
    queue = django_rq.get_queue("evaluation", commit_mode="auto")
    job = queue.enqueue("leaderboard.scoring.jobs.evaluate_run", run.pk, job_id=job_id(run.pk, 1))
    job.set_status("failed")  # what rq records when the work horse is killed
    with django_capture_on_commit_callbacks(execute=False):
        outcome = reap_stale_runs()
    assert outcome["requeued"] == [run.pk]


@pytest.mark.redis
@pytest.mark.tla
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_run_leaves_a_run_the_reaper_recovers(rq_redis, tmp_path, settings):
    from leaderboard.scoring.queueing import enqueue_run

    settings.SCORING_STALE_AFTER_SECONDS = 3600  # the worker's death, not the clock, must tell
    contract = load_contract("spin")
    task, _ = sync_task(contract)
    import_corpus(task, contract, Path(settings.SYSMOBENCH_DATA_DIR))
    run = make_run(make_model(), task, spec_text=SPIN_SPEC.read_text())
    enqueue_run(run)

    worker = start_worker(rq_redis, tmp_path / "worker-1.log")
    try:
        wait_for(lambda: PhaseResult.objects.filter(run=run, phase="syntax").exists(), 120)
    finally:
        kill_worker(worker)
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING  # the dead worker left it mid-run

    outcome = reap_stale_runs()
    assert outcome["requeued"] == [run.pk]
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED

    output = finish_worker(start_worker(rq_redis, tmp_path / "worker-2.log"), timeout=300)
    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED, output[-3000:]
    assert run.attempts == 2
    assert run.phase_results.count() == 4


def test_sandbox_directories_older_than_the_threshold_are_swept(tmp_path):
    from evaluation.tla.sandbox import RUN_DIR_PREFIX, sweep_abandoned_run_dirs

    abandoned = tmp_path / f"{RUN_DIR_PREFIX}killed"
    (abandoned / "spec").mkdir(parents=True)
    an_hour_ago = time.time() - 3600
    os.utime(abandoned, (an_hour_ago, an_hour_ago))
    live = tmp_path / f"{RUN_DIR_PREFIX}live"
    live.mkdir()
    unrelated = tmp_path / "someone-elses-dir"
    unrelated.mkdir()
    os.utime(unrelated, (an_hour_ago, an_hour_ago))

    removed = sweep_abandoned_run_dirs(600, root=tmp_path)

    assert removed == [abandoned] and not abandoned.exists()
    assert live.is_dir(), "a directory younger than the threshold may belong to a live run"
    assert unrelated.is_dir()


@pytest.mark.django_db
def test_the_reaper_command_reports_the_sweep(without_redis, settings):
    # A threshold far beyond any real directory's age: the command must not touch live runs
    # of other processes on this machine while it is being tested.
    settings.SCORING_STALE_AFTER_SECONDS = 10 * 365 * 24 * 3600
    out = StringIO()
    call_command("reap_runs", stdout=out)
    assert "abandoned sandbox directories removed: 0" in out.getvalue()
