"""The at-once quota counts the runs that will still cost a worker: every queued run, and a
running one until the stale limit, past which rq has stopped its work-horse. A run whose job
died must not lock its account out, and no submitter can free a slot early: the attacks below
(runs whose jobs died, a run re-queued by the reaper) still count."""

from datetime import timedelta

from django.test import override_settings
from django.utils import timezone

from leaderboard.models import Run
from leaderboard.scoring.reaper import reap_stale_runs
from leaderboard.shared.ratelimit import Limited
from leaderboard.submit.submissions import check_quota, quota_status
from tests.base import WorldTestCase, make_run

STALE_AFTER = 4500


@override_settings(
    QUOTA_QUEUED_RUNS_PER_USER=2,
    QUOTA_RUNS_PER_USER_PER_DAY=100,
    SCORING_STALE_AFTER_SECONDS=STALE_AFTER,
    SCORING_MAX_ATTEMPTS=3,
    RQ_QUEUES={"evaluation": {"URL": "redis://127.0.0.1:1/0"}},
)
class InFlightQuotaTest(WorldTestCase):
    def runs(self, n, status, started_ago=None, created_ago=timedelta(0)):
        now = timezone.now()
        for _ in range(n):
            run = make_run(self.model_a, self.spin, submitter=self.alice, review="private")
            Run.objects.filter(pk=run.pk).update(
                status=status,
                created_at=now - created_ago,
                started_at=None if started_ago is None else now - started_ago,
                attempts=0 if status == Run.Status.QUEUED else 1,
            )

    def test_running_runs_past_the_stale_limit_do_not_lock_the_account_out(self):
        self.runs(2, Run.Status.RUNNING, started_ago=timedelta(seconds=STALE_AFTER + 60))
        check_quota(self.alice)  # no exception
        self.assertEqual(quota_status(self.alice)["in_flight"], 0)

    def test_running_runs_within_the_stale_limit_count(self):
        self.runs(2, Run.Status.RUNNING, started_ago=timedelta(seconds=STALE_AFTER - 60))
        with self.assertRaises(Limited):
            check_quota(self.alice)

    def test_queued_runs_whose_job_died_long_ago_still_count(self):
        # The reaper gives them a new job: they will be scored, so they hold their slots.
        self.runs(2, Run.Status.QUEUED, created_ago=timedelta(days=2))
        with self.assertRaises(Limited):
            check_quota(self.alice)

    def test_a_stale_run_the_reaper_requeues_counts_again(self):
        self.runs(1, Run.Status.RUNNING, started_ago=timedelta(seconds=STALE_AFTER + 60))
        self.runs(1, Run.Status.QUEUED)
        check_quota(self.alice)  # 1 in flight of 2
        with self.captureOnCommitCallbacks(execute=False):
            self.assertEqual(len(reap_stale_runs()["requeued"]), 1)
        with self.assertRaises(Limited):
            check_quota(self.alice)

    def test_finished_and_failed_runs_do_not_count(self):
        self.runs(1, Run.Status.FINISHED, started_ago=timedelta(minutes=1))
        self.runs(1, Run.Status.FAILED, started_ago=timedelta(minutes=1))
        self.runs(1, Run.Status.QUEUED)
        check_quota(self.alice)
