"""A job queued by the release before the layout names `leaderboard.jobs.evaluate_run`.

rq stores the dotted path a job was queued with, so the old path stays an alias for one release;
a worker of this release must still claim and finish such a job.
"""

import pytest
from rq.utils import import_attribute

from leaderboard.models import Run
from leaderboard.scoring.jobs import evaluate_run
from leaderboard.scoring.queueing import JOB_PATH, QUEUE_NAME, job_id
from tests.base import make_model, make_task
from tests.rq_worker import finish_worker, start_worker

OLD_JOB_PATH = "leaderboard.jobs.evaluate_run"


def test_the_old_dotted_path_resolves_to_the_job():
    assert JOB_PATH != OLD_JOB_PATH
    assert import_attribute(OLD_JOB_PATH) is evaluate_run
    assert import_attribute(JOB_PATH) is evaluate_run


@pytest.mark.redis
@pytest.mark.tla
@pytest.mark.django_db(transaction=True)
def test_a_worker_finishes_a_job_queued_under_the_old_path(rq_redis, tmp_path):
    import django_rq

    # curp has no traces, and SANY refuses this spec: the run ends after P1, quickly.
    task = make_task("curp")
    run = Run.objects.create(
        model=make_model(), task=task, spec_text="---- MODULE curp ----\nInit == \n===="
    )
    django_rq.get_queue(QUEUE_NAME).enqueue(OLD_JOB_PATH, run.pk, job_id=job_id(run.pk, 1))

    output = finish_worker(start_worker(rq_redis, tmp_path / "worker.log"), timeout=300)

    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED, f"{run.failure_reason}\n{output[-2000:]}"
    assert run.phase_results.get(phase="syntax").status == "ran"
    assert f"{OLD_JOB_PATH}({run.pk})" in output
