"""SIGKILL a real `rqworker` mid-TLC (the main process, the work-horse, or both): the reaper
recovers every run, none is scored twice, no JVM is left behind.

Issue 10, hole 9 (8 of 10 runs were scored twice when the main worker was killed; a killed
work-horse left its JVM running in 4 of 5 trials). Two trials per kind keep the test
affordable; bench/kill_trials.py runs ten per kind and prints the figures.
"""

from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract
from leaderboard.tasks.importing import import_corpus, sync_task
from tests.base import make_model, make_run
from tests.kill_trials import KINDS, run_trial

SPIN_SPEC = Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla"
TRIALS_PER_KIND = 2
LAUNCHER = Path(__file__).resolve().parent.parent / "evaluation" / "tla" / "sandbox" / "_launch.py"

pytestmark = [pytest.mark.redis, pytest.mark.tla, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("kind", KINDS)
def test_killing_a_worker_mid_run_loses_nothing_and_scores_nothing_twice(kind, rq_redis, tmp_path):
    contract = load_contract("spin")
    task, _ = sync_task(contract)
    import_corpus(task, contract, Path(settings.SYSMOBENCH_DATA_DIR))
    trials = []
    for number in range(TRIALS_PER_KIND):
        run = make_run(make_model(f"kill-{kind}-{number}"), task, spec_text=SPIN_SPEC.read_text())
        trials.append(run_trial(kind, run, rq_redis, tmp_path / f"trial-{number}"))
    summary = [
        (
            t.status,
            t.attempts,
            t.most_horses_at_once,
            t.late_rows,
            t.jvms_left,
            t.jvms_outliving_horse,
        )
        for t in trials
    ]
    assert [t.lost for t in trials] == [False] * TRIALS_PER_KIND, summary
    assert [t.scored_twice for t in trials] == [False] * TRIALS_PER_KIND, summary
    assert [t.jvms_left for t in trials] == [0] * TRIALS_PER_KIND, summary
    # A killed main worker leaves its work-horse to finish the run; a killed horse costs a retry.
    expected_attempts = 1 if kind == "main" else 2
    assert [t.attempts for t in trials] == [expected_attempts] * TRIALS_PER_KIND, summary
    # A killed horse's JVM dies by its parent-death signal, set by the sandbox launcher
    # (docs/decisions/0003-no-run-left-behind.md); a launcher without it would make this an xfail.
    orphans = [t.jvms_outliving_horse for t in trials]
    if orphans != [0] * TRIALS_PER_KIND and "PR_SET_PDEATHSIG" not in LAUNCHER.read_text():
        pytest.xfail(
            f"JVMs outlived their killed work-horse, launcher without PDEATHSIG: {summary}"
        )
    assert orphans == [0] * TRIALS_PER_KIND, summary


def test_a_jvm_killed_mid_run_is_retried_by_the_workers_and_scored_once(rq_redis, tmp_path):
    # The work-horse queues the retry itself, on the queue its own settings choose for the run
    # (no submitter: the bulk queue); the workers must take it there, as compose's do. With a
    # worker of `evaluation` alone the run waited, QUEUED, for ever (bench/kill_trials.py).
    contract = load_contract("spin")
    task, _ = sync_task(contract)
    import_corpus(task, contract, Path(settings.SYSMOBENCH_DATA_DIR))
    run = make_run(make_model("kill-jvm"), task, spec_text=SPIN_SPEC.read_text())
    assert run.submitter_id is None
    trial = run_trial("jvm", run, rq_redis, tmp_path / "trial", timeout=300)
    assert (trial.status, trial.attempts, trial.stuck) == ("finished", 2, False), trial
    assert not trial.scored_twice and not trial.lost and trial.jvms_left == 0, trial
