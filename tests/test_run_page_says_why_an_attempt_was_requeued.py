"""The run page says what happened to an attempt the machine ended (a worker that died, a JVM
killed from outside, a lost database connection): which attempt this is, of how many, and why the
earlier ones count for nothing."""

from django.test import override_settings

from leaderboard.models import Run, RunEvent
from tests.base import WorldTestCase, make_run, make_run_event

LOG = (
    "2026-01-01 10:00:00 attempt 1 started on host:1\n"
    "2026-01-01 10:00:05 attempt 1: TLC did not finish: the tool was killed by a signal the "
    "sandbox did not send; not the spec's result, re-queued\n"
    "2026-01-01 10:00:06 attempt 2 started on host:2\n"
    "2026-01-01 10:01:00 the worker of attempt 2 died; re-queued\n"
    "2026-01-01 10:01:01 attempt 3 started on host:3\n"
)

# What `Run.record` wrote beside those lines: the page reads these rows.
REQUEUES = [
    (1, "attempt 1: TLC did not finish: the tool was killed by a signal the sandbox did not "
        "send; not the spec's result, re-queued"),
    (2, "the worker of attempt 2 died; re-queued"),
]  # fmt: skip


@override_settings(SCORING_MAX_ATTEMPTS=3)
class RequeuedAttemptsTest(WorldTestCase):
    def test_the_page_names_the_attempt_and_each_earlier_one_s_reason(self):
        run = make_run(self.model_a, self.spin, status=Run.Status.RUNNING, attempts=3, log=LOG)
        for attempt, reason in REQUEUES:
            make_run_event(run, RunEvent.Event.REQUEUED, reason, attempt)
        page = self.client.get(run.get_absolute_url())
        self.assertContains(page, "Attempt 3 of at most 3")
        self.assertContains(page, "killed by a signal the sandbox did not send")
        self.assertContains(page, "<li>the worker of attempt 2 died; re-queued</li>", html=True)

    def test_a_run_scored_at_its_first_attempt_says_nothing_about_attempts(self):
        run = make_run(self.model_a, self.spin, {"syntax": 1.0}, attempts=1,
                       log="2026-01-01 10:00:00 attempt 1 started on host:1\n")  # fmt: skip
        page = self.client.get(run.get_absolute_url())
        self.assertEqual(page.status_code, 200)
        self.assertNotContains(page, "of at most")
