"""Upload -> Redis -> a real `rqworker` process -> a finished run with every verdict.

The worker is a separate process, so it must see this test's rows: the session's SQLite test
database is a file whenever `redis` tests are collected (tests/conftest.py), the test uses
`transaction=True` so rows are committed, and the worker gets that file (or the PostgreSQL test
database) through DATABASE_URL and this test's own Redis database through REDIS_URL.
"""

from pathlib import Path

import pytest
from django.urls import reverse

from evaluation.inputs.contracts import load_contract
from leaderboard.models import InvariantResult, Run, WindowResult
from leaderboard.scoring.queueing import QUEUE_NAME, job_id, queue_position
from leaderboard.tasks.importing import import_corpus, sync_task
from tests.base import make_user
from tests.rq_worker import finish_worker, start_worker

SPIN_SPEC = (
    Path(__file__).resolve().parent.parent / "tasks_data" / "spin" / "reference" / "spin.tla"
)

pytestmark = [pytest.mark.redis, pytest.mark.tla, pytest.mark.django_db(transaction=True)]


def test_an_uploaded_spin_spec_is_scored_by_an_rq_worker(rq_redis, client, tmp_path, settings):
    import django_rq

    contract = load_contract("spin")
    task, _ = sync_task(contract)
    corpus = import_corpus(task, contract, Path(settings.SYSMOBENCH_DATA_DIR))

    client.force_login(make_user("end-to-end"))
    response = client.post(
        reverse("submit"),
        {
            "task": "spin",
            "new_model_name": "End To End Model",
            "new_model_organisation": "Test Org",
            "new_model_kind": "llm",
            "spec_text": SPIN_SPEC.read_text(),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    run = Run.objects.get(model__slug="end-to-end-model")
    assert response["Location"] == run.get_absolute_url()
    assert run.status == Run.Status.QUEUED
    assert queue_position(run) == 1
    queue = django_rq.get_queue(QUEUE_NAME)
    assert queue.job_ids == [job_id(run.pk, 1)]

    output = finish_worker(start_worker(rq_redis, tmp_path / "worker.log"), timeout=600)

    run.refresh_from_db()
    assert run.status == Run.Status.FINISHED, f"{run.failure_reason}\n{output[-3000:]}"
    assert queue_position(run) is None
    phases = {r.phase: r for r in run.phase_results.all()}
    assert sorted(phases) == sorted(["syntax", "runtime", "conformance", "invariant"])
    assert all(r.status == "ran" for r in phases.values())
    windows = WindowResult.objects.filter(phase_result=phases["conformance"])
    # Each window and its symmetry probe (spin's threads are symmetric: windows/symmetry.py).
    assert corpus.window_count == task.corpora.get().window_count
    assert windows.count() == corpus.window_count * (
        2 if load_contract("spin").traces.symmetric_actors else 1
    )
    assert set(windows.values_list("verdict", flat=True)) == {"pass"}
    invariants = InvariantResult.objects.filter(phase_result=phases["invariant"])
    assert sorted(invariants.values_list("name", flat=True)) == sorted(
        i.name for i in contract.invariants
    )
    assert set(invariants.values_list("verdict", flat=True)) == {"holds"}
    assert run.overall == pytest.approx(1.0)
    assert run.fingerprint["jar_sha256"]
    assert queue.count == 0
