"""Per-account quotas: runs queued at once and runs per rolling day. Over either, the form and the
API answer 429 with a Retry-After and words that say when, and nothing is saved or queued."""

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from leaderboard.accounts.tokens import create_token
from leaderboard.models import Run
from leaderboard.shared.ratelimit import Limited
from leaderboard.submit.submissions import check_quota
from tests.base import WorldTestCase, make_run

GOOD = (Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla").read_text()


@override_settings(QUOTA_QUEUED_RUNS_PER_USER=2, QUOTA_RUNS_PER_USER_PER_DAY=3)
class QuotaTest(WorldTestCase):
    def setUp(self):
        self.client.force_login(self.alice)

    def post_form(self):
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            response = self.client.post(
                reverse("submit"), {"task": "spin", "model": "model-a", "spec_text": GOOD}
            )
        return response, callbacks

    def queue(self, n, user=None, **fields):
        for _ in range(n):
            make_run(self.model_a, self.spin, submitter=user or self.alice, status="queued",
                     review="private", **fields)  # fmt: skip

    def test_a_full_queue_answers_429_with_when_to_retry(self):
        self.queue(2)
        response, callbacks = self.post_form()
        self.assertEqual(response.status_code, 429)
        self.assertEqual(response["Retry-After"], "60")
        self.assertContains(response, "You have 2 runs queued or being scored; the limit is 2",
                            status_code=429)  # fmt: skip
        self.assertContains(response, "Try again in 60 seconds", status_code=429)
        self.assertEqual((Run.objects.count(), callbacks), (2, []))

    def test_the_api_answers_the_same_429_as_json(self):
        self.queue(2)
        token, _ = create_token(self.alice, "ci")
        response = self.client.post(
            reverse("api_runs"),
            json.dumps({"task": "spin", "model": "model-a", "spec_text": GOOD}),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {token}",
        )
        self.assertEqual(response.status_code, 429)
        body = response.json()["error"]
        self.assertEqual((body["retry_after"], response["Retry-After"]), (60, "60"))
        self.assertIn("the limit is 2 at once", body["message"])
        self.assertEqual(Run.objects.count(), 2)

    def test_the_daily_quota_says_when_the_oldest_run_of_the_day_frees_a_slot(self):
        now = timezone.now()
        for hours in (2, 5, 23):
            make_run(self.model_a, self.spin, {"syntax": 1.0}, submitter=self.alice,
                     created_at=now - timedelta(hours=hours))  # fmt: skip
        with self.assertRaises(Limited) as raised:
            check_quota(self.alice)
        self.assertIn("3 runs in the last 24 hours; the limit is 3 a day", raised.exception.message)
        self.assertAlmostEqual(raised.exception.retry_after, 3600, delta=5)
        response, _ = self.post_form()
        self.assertEqual(response.status_code, 429)
        self.assertAlmostEqual(int(response["Retry-After"]), 3600, delta=5)
        self.assertContains(response, "Try again in 60 minutes", status_code=429)

    def test_runs_older_than_a_day_and_finished_runs_do_not_count(self):
        self.queue(1)
        make_run(self.model_a, self.spin, {"syntax": 1.0}, submitter=self.alice)
        make_run(self.model_a, self.spin, {"syntax": 1.0}, submitter=self.alice,
                 created_at=timezone.now() - timedelta(hours=25))  # fmt: skip
        check_quota(self.alice)  # 1 of 2 queued, 2 of 3 today: no exception

    def test_one_account_s_quota_does_not_limit_another(self):
        self.queue(2, user=self.bob)
        check_quota(self.alice)
        with self.assertRaises(Limited):
            check_quota(self.bob)

    def test_the_account_page_shows_the_quota(self):
        self.queue(1)
        page = self.client.get(reverse("my_runs"))
        self.assertContains(page, "Queued or being scored: 1 of 2 at once")
        self.assertContains(page, "submitted in the last 24 hours: 1 of 3")

    @pytest.mark.tla
    def test_an_upload_within_the_quota_is_accepted(self):
        self.queue(1)
        response, callbacks = self.post_form()
        self.assertEqual(response.status_code, 302, response.content.decode()[:500])
        self.assertEqual((Run.objects.count(), len(callbacks)), (2, 1))
