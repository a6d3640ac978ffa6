"""A user's submission is scored before the operator's bulk loads (the archive, the demo's
sample): it goes on the `evaluation` queue, they go on `evaluation-bulk`, which a worker takes
only when the first is empty, and the queue position counts the same way. A queued run says
roughly when it will be scored: the runs ahead and its own at the mean of recent scoring times,
as an estimate (the job in progress: tests/test_first_hour_rough_edges.py)."""

from datetime import timedelta
from unittest import mock

from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from leaderboard.accounts.tokens import create_token
from leaderboard.models import Run
from leaderboard.scoring import queueing
from leaderboard.templatetags.run_extras import wait_words
from tests.base import WorldTestCase, make_model, make_run

BOTH = {name: {"URL": "redis://127.0.0.1:1/0"} for name in ("evaluation", "evaluation-bulk")}


class PriorityTest(WorldTestCase):
    def setUp(self):
        self.archive = make_model("claude-2025-archive")
        self.loads = [make_run(self.archive, self.spin, status=Run.Status.QUEUED,
                               review=Run.Review.APPROVED) for _ in range(3)]  # fmt: skip
        self.mine = make_run(self.model_a, self.spin, submitter=self.alice,
                             status=Run.Status.QUEUED, review=Run.Review.PRIVATE)  # fmt: skip

    def test_a_submission_queued_after_the_archive_is_first(self):
        self.assertEqual(queueing.queue_position(self.mine), 1)
        # The archive's runs wait behind every submission, in their own order.
        self.assertEqual([queueing.queue_position(r) for r in self.loads], [2, 3, 4])

    @override_settings(RQ_QUEUES=BOTH, RQ_FORCE_INLINE=False)
    def test_each_goes_on_its_queue_and_the_worker_listens_high_first(self):
        queued = []
        fake = mock.Mock(enqueue=lambda *a, **k: queued.append(k["job_id"]))
        with (
            mock.patch.object(queueing, "redis_answers", return_value=True),
            mock.patch.object(queueing.django_rq, "get_queue", return_value=fake) as get_queue,
            self.captureOnCommitCallbacks(execute=True),
        ):
            queueing.enqueue_run(self.loads[0])
            queueing.enqueue_run(self.mine)
        names = [c.args[0] for c in get_queue.call_args_list]
        self.assertEqual(names, ["evaluation-bulk", "evaluation"])
        demo = (queueing.settings.BASE_DIR / "bin" / "demo").read_text()
        self.assertIn("rqworker evaluation evaluation-bulk", demo)

    def test_without_a_bulk_queue_configured_everything_shares_one(self):
        with override_settings(RQ_QUEUES={"evaluation": {"URL": "redis://x"}}):
            self.assertEqual(queueing.queue_for(self.loads[0]), "evaluation")


class WaitEstimateTest(WorldTestCase):
    def finished_in(self, minutes: float) -> Run:
        end = timezone.now()
        return make_run(self.model_b, self.spin, {"syntax": 1.0}, submitter=self.bob,
                        started_at=end - timedelta(minutes=minutes), finished_at=end)  # fmt: skip

    def test_the_queued_run_page_and_status_give_position_times_the_mean(self):
        for minutes in (2, 4, 30):  # mean 12 minutes
            self.finished_in(minutes)
        ahead = make_run(self.model_b, self.spin, submitter=self.bob, status=Run.Status.QUEUED)
        mine = make_run(self.model_a, self.spin, submitter=self.alice, status=Run.Status.QUEUED,
                        review=Run.Review.PRIVATE)  # fmt: skip
        self.assertIsNotNone(ahead)
        token, _ = create_token(self.alice, "ci")
        status = self.client.get(reverse("run_status", args=[mine.pk]),
                                 HTTP_AUTHORIZATION=f"Bearer {token}").json()  # fmt: skip
        self.assertEqual(status["queue_position"], 2)
        self.assertEqual(status["queue_wait_estimate"]["seconds"], 2 * 12 * 60)
        self.assertEqual(status["queue_wait_estimate"]["from_runs"], 3)
        self.client.force_login(self.alice)
        page = self.client.get(mine.get_absolute_url())
        self.assertContains(page, "scored in about 24 minutes (an estimate")

    def test_no_history_no_estimate(self):
        run = make_run(self.model_a, self.spin, submitter=self.alice, status=Run.Status.QUEUED)
        self.assertIsNone(queueing.wait_estimate(run))

    def test_the_words(self):
        self.assertEqual([wait_words(s) for s in (30, 600, 7200)],
                         ["a minute", "10 minutes", "2.0 hours"])  # fmt: skip
