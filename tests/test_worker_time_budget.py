"""Each account has a budget of worker (scoring) time per rolling day
(docs/decisions/0029-abuse-bounds.md): one account's slow specs cannot keep the only worker busy all
day. My runs shows what is spent; once it is, a new run waits (429 with Retry-After and the reason)
until older runs turn a day old. A retry the machine caused is not charged: only the phases' own
recorded durations count."""

import json
from datetime import timedelta

from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from leaderboard.accounts.tokens import create_token
from leaderboard.models import Run
from leaderboard.submit.submissions import quota_status
from tests.base import WorldTestCase, make_phase_result, make_run

SPEC = "---- MODULE spin ----\n====\n"


@override_settings(QUOTA_WORKER_SECONDS_PER_USER_PER_DAY=600)
class WorkerBudgetTest(WorldTestCase):
    def scored(self, seconds: float, hours_ago: float = 1, user=None):
        run = make_run(self.model_a, self.spin, submitter=user or self.alice, review="private",
                       created_at=timezone.now() - timedelta(hours=hours_ago))  # fmt: skip
        make_phase_result(run, "syntax", 1.0, duration_seconds=seconds / 2)
        make_phase_result(run, "runtime", 0.0, duration_seconds=seconds / 2)
        return run

    def api_submit(self):
        token, _ = create_token(self.alice, "ci")
        return self.client.post(
            reverse("api_runs"),
            json.dumps({"task": "spin", "model": "model-a", "spec_text": SPEC}),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {token}",
        )

    def test_a_spent_budget_makes_a_new_run_wait_with_the_reason(self):
        # The attack: runs that each take the worker for minutes, one after another.
        self.scored(400, hours_ago=20)
        self.scored(300, hours_ago=2)
        before = Run.objects.count()
        response = self.api_submit()
        self.assertEqual(response.status_code, 429)
        message = response.json()["error"]["message"]
        self.assertIn("took 12 minutes of scoring time in the last 24 hours", message)
        self.assertIn("the budget is 10 minutes a day", message)
        # Freed when the run of 20 hours ago turns a day old: in about 4 hours.
        retry = int(response["Retry-After"])
        self.assertTrue(4 * 3600 - 120 < retry <= 4 * 3600, retry)
        self.assertEqual(Run.objects.count(), before)

    def test_the_form_answers_the_same(self):
        self.scored(700)
        self.client.force_login(self.alice)
        response = self.client.post(reverse("submit"), {"task": "spin", "model": "model-a",
                                                        "spec_text": SPEC})  # fmt: skip
        self.assertContains(response, "minutes of scoring time", status_code=429)

    def test_runs_older_than_a_day_and_other_accounts_runs_are_not_charged(self):
        self.scored(5000, hours_ago=25)
        self.scored(5000, user=self.bob)
        self.scored(120)
        self.assertEqual(quota_status(self.alice)["worker_minutes"], 2.0)

    def test_my_runs_shows_the_time_spent_and_the_budget(self):
        self.scored(300)
        self.client.force_login(self.alice)
        page = self.client.get(reverse("my_runs"))
        self.assertContains(page, "scoring time in the last 24 hours: 5.0 of 10.0 minutes")
