"""A run's scoring history is rows (attempt, event, reason), not lines to parse
(docs/decisions/0024-typed-credit-and-run-history.md): the job and the reaper write them through
`Run.record`, which also keeps the text log maintainers read; the run page's re-queue notes come
from the rows; and migration 0014 turns the logs of runs scored before it into rows."""

from datetime import UTC, datetime
from unittest import mock

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from evaluation.results import InfrastructureFailure
from leaderboard.models import Run, RunEvent
from leaderboard.scoring.jobs import evaluate_run
from tests.base import WorldTestCase, make_model, make_run, make_run_event, make_task

NO_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


class RunHistoryTest(WorldTestCase):
    def test_a_recorded_step_is_a_row_of_its_attempt_and_a_line_of_the_log(self):
        run = make_run(self.model_a, self.spin, attempts=2)
        run.record(RunEvent.Event.REQUEUED, "the worker of attempt 2 died; re-queued")
        event = run.events.get()
        self.assertEqual(
            (event.attempt, event.event, event.reason),
            (2, "requeued", "the worker of attempt 2 died; re-queued"),
        )
        run.refresh_from_db()
        self.assertEqual(
            run.log, f"{event.at:%Y-%m-%d %H:%M:%S} the worker of attempt 2 died; re-queued\n"
        )

    def test_requeue_notes_are_the_requeued_rows_in_order(self):
        run = make_run(self.model_a, self.spin, attempts=3)
        make_run_event(run, RunEvent.Event.STARTED, "attempt 1 started on host:1", 1)
        make_run_event(run, RunEvent.Event.REQUEUED, "first reason", 1)
        make_run_event(run, RunEvent.Event.STARTED, "attempt 2 started on host:2", 2)
        make_run_event(run, RunEvent.Event.REQUEUED, "second reason", 2)
        self.assertEqual(run.requeue_notes(), ["first reason", "second reason"])

    def test_a_maintainer_reads_the_history_by_attempt_in_the_admin(self):
        run = make_run(self.model_a, self.spin, attempts=1)
        make_run_event(run, RunEvent.Event.REQUEUED, "the worker of attempt 1 died; re-queued")
        self.client.force_login(self.maintainer)
        page = self.client.get(reverse("admin:leaderboard_run_change", args=[run.pk]))
        self.assertContains(page, "the worker of attempt 1 died; re-queued")
        self.assertContains(page, "Re-queued")

    def test_the_text_log_is_not_read_for_notes(self):
        # A line that ends like a re-queue but is no re-queue row: the page says nothing of it.
        log = "2026-01-01 10:00:00 failed: adapter error: unknown action re-queued\n"
        run = make_run(self.model_a, self.spin, attempts=1, log=log)
        self.assertEqual(run.requeue_notes(), [])


@pytest.mark.django_db(transaction=True)
def test_a_requeued_attempt_leaves_its_steps_as_rows(settings):
    settings.RQ_QUEUES = {"evaluation": {"URL": NO_REDIS}}
    settings.RQ_FORCE_INLINE = False
    settings.SCORING_MAX_ATTEMPTS = 3
    run = make_run(make_model(), make_task("spin"), status=Run.Status.QUEUED)
    killed = InfrastructureFailure("TLC was killed by a signal the sandbox did not send")
    with mock.patch("leaderboard.scoring.jobs._load_inputs", side_effect=killed):
        assert evaluate_run(run.pk) == Run.Status.QUEUED
    steps = list(run.events.values_list("attempt", "event"))
    assert steps == [(1, "started"), (1, "requeued")]
    assert run.requeue_notes() == [
        "attempt 1: TLC was killed by a signal the sandbox did not send; not the spec's result, "
        "re-queued"
    ]


# A log as the job and the reaper wrote it before migration 0014 (their exact wording).
OLD_LOG = (
    "2026-01-01 10:00:00 attempt 1 started on host:1\n"
    "2026-01-01 10:00:01 near-duplicate of spin/reference/spin.tla (similarity 0.970)\n"
    "2026-01-01 10:00:05 attempt 1: TLC did not finish: the tool was killed by a signal the "
    "sandbox did not send; not the spec's result, re-queued\n"
    "2026-01-01 10:00:06 attempt 2 started on host:2\n"
    "2026-01-01 10:00:30 syntax: ran, score 1.000, 0.4 s\n"
    "2026-01-01 10:00:59 stopped attempt 2 (pid 4242) before re-queueing\n"
    "2026-01-01 10:01:00 the worker of attempt 2 died; re-queued\n"
    "2026-01-01 10:01:01 attempt 3 started on host:3\n"
    "2026-01-01 10:02:00 finished: overall 0.712\n"
)
OLD_ROWS = [
    (1, "started", "attempt 1 started on host:1"),
    (1, "near_duplicate", "near-duplicate of spin/reference/spin.tla (similarity 0.970)"),
    (1, "requeued", "attempt 1: TLC did not finish: the tool was killed by a signal the sandbox "
                    "did not send; not the spec's result, re-queued"),
    (2, "started", "attempt 2 started on host:2"),
    (2, "phase", "syntax: ran, score 1.000, 0.4 s"),
    (2, "stopped", "stopped attempt 2 (pid 4242) before re-queueing"),
    (2, "requeued", "the worker of attempt 2 died; re-queued"),
    (3, "started", "attempt 3 started on host:3"),
    (3, "finished", "finished: overall 0.712"),
]  # fmt: skip


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([("leaderboard", target)])
    return executor.loader.project_state([("leaderboard", target)]).apps


@pytest.fixture
def back_to_latest():
    """Leave the database fully migrated for the tests that follow."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_an_old_log_becomes_rows_by_attempt(back_to_latest):
    apps = _migrate("0013_typed_credit")
    task = apps.get_model("leaderboard", "Task").objects.create(
        slug="spin", name="spin", system="s", kind="concurrent", language="Rust",
        module_name="spin", source_repository="https://example.org",
    )  # fmt: skip
    model = apps.get_model("leaderboard", "ModelUnderTest").objects.create(
        slug="m", name="M", organisation="O"
    )
    Run_ = apps.get_model("leaderboard", "Run")
    old = Run_.objects.create(model=model, task=task, status="finished", attempts=3, log=OLD_LOG)
    Run_.objects.create(model=model, task=task, status="queued")  # no log, no rows
    apps = _migrate("0014_run_events")
    RunEvent_ = apps.get_model("leaderboard", "RunEvent")
    rows = RunEvent_.objects.order_by("at", "id")
    assert list(rows.values_list("attempt", "event", "reason")) == OLD_ROWS
    assert set(rows.values_list("run_id", flat=True)) == {old.pk}
    assert rows.first().at == datetime(2026, 1, 1, 10, 0, tzinfo=UTC)
