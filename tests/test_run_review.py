"""A run's way onto the board: private until its owner publishes it, public but off the board
until a maintainer approves it in the admin; a rejection takes it off the site with a reason the
submitter reads. A published (reported) figure is superseded only by an approved run."""

import io

from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from leaderboard.accounts.tokens import create_token
from leaderboard.models import ModelUnderTest, ReviewError, Run
from tests.base import WorldTestCase, make_run

FULL = {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0, "invariant": 1.0}
# 0.15 overall: a 9-line spec (docs/decisions/0028-access-and-hostile-input.md).
WEAK = {"syntax": 1.0}


class ReviewTest(WorldTestCase):
    def setUp(self):
        self.run = make_run(self.model_a, self.spin, FULL, submitter=self.alice, review="private")

    def board_runs(self) -> dict:
        """{model slug: {task: (run id, provenance)}} from the public JSON export."""
        models = self.client.get(reverse("leaderboard_export", args=["json"])).json()["models"]
        return {
            m["slug"]: {t: (r["run_id"], r["provenance"]) for t, r in m["runs"].items()}
            for m in models
        }

    def publish_as_alice(self):
        self.client.force_login(self.alice)
        return self.client.post(reverse("run_publish", args=[self.run.pk]), follow=True)

    def test_a_private_run_is_off_the_board_and_its_page_says_private(self):
        self.assertEqual(self.board_runs(), {})
        self.client.force_login(self.alice)
        page = self.client.get(reverse("run_detail", args=[self.run.pk]))
        self.assertContains(page, "<strong>private</strong>", html=False)
        self.assertContains(page, 'id="publish-button"')

    def test_publishing_makes_it_public_but_keeps_it_off_the_board_until_approved(self):
        page = self.publish_as_alice()
        self.assertContains(page, "awaiting review")
        self.run.refresh_from_db()
        self.assertEqual(self.run.review, Run.Review.PENDING)
        self.assertIsNotNone(self.run.published_at)
        self.client.logout()
        self.assertEqual(self.client.get(self.run.get_absolute_url()).status_code, 200)
        self.assertEqual(self.board_runs(), {})
        self.run.approve(self.maintainer)
        self.assertEqual(self.board_runs(), {"model-a": {"spin": (self.run.pk, "verified")}})
        self.assertContains(self.client.get(self.run.get_absolute_url()), "on the board")

    def test_the_owner_s_token_publishes_it_through_the_api_once(self):
        token, _ = create_token(self.alice, "ci")
        url = reverse("api_run_publish", args=[self.run.pk])
        response = self.client.post(url, HTTP_AUTHORIZATION=f"Bearer {token}")
        self.assertEqual((response.status_code, response.json()["review"]), (200, "pending"))
        again = self.client.post(url, HTTP_AUTHORIZATION=f"Bearer {token}")
        self.assertEqual((again.status_code, again.json()["error"]["review"]), (409, "pending"))
        self.assertIn("published already", again.json()["error"]["message"])

    def test_a_run_still_being_scored_cannot_be_published(self):
        self.run.status = Run.Status.RUNNING
        self.run.save()
        page = self.publish_as_alice()
        self.assertContains(page, "Only a finished run can be published; this one is running")
        self.run.refresh_from_db()
        self.assertEqual(self.run.review, Run.Review.PRIVATE)

    def test_each_step_happens_once_even_from_two_stale_copies(self):
        first, second = Run.objects.get(pk=self.run.pk), Run.objects.get(pk=self.run.pk)
        first.publish(self.alice)
        with self.assertRaises(ReviewError):
            second.publish(self.alice)
        first.approve(self.maintainer)
        with self.assertRaises(ReviewError):
            second.approve(self.maintainer)
        self.assertEqual(Run.objects.get(pk=self.run.pk).review, Run.Review.APPROVED)

    def test_only_the_submitter_publishes(self):
        with self.assertRaises(ReviewError):
            self.run.publish(self.bob)
        self.assertEqual(Run.objects.get(pk=self.run.pk).review, Run.Review.PRIVATE)

    def test_a_rejection_needs_a_reason_and_the_submitter_reads_it(self):
        self.run.publish(self.alice)
        with self.assertRaises(ReviewError):
            self.run.reject(self.maintainer, "  ")
        self.assertEqual(Run.objects.get(pk=self.run.pk).review, Run.Review.PENDING)
        self.run.reject(self.maintainer, "The spec copies the reference spec.")
        self.assertEqual(self.client.get(self.run.get_absolute_url()).status_code, 404)
        self.client.force_login(self.alice)
        page = self.client.get(self.run.get_absolute_url())
        self.assertContains(page, "<strong>rejected</strong>", html=False)
        self.assertContains(page, "The spec copies the reference spec.")
        self.assertContains(self.client.get(reverse("my_runs")), "The spec copies the reference")

    def test_rejecting_an_approved_run_takes_it_off_the_board(self):
        self.run.publish(self.alice)
        self.run.approve(self.maintainer, note="Thanks!")
        self.assertIn("model-a", self.board_runs())
        self.run.reject(self.maintainer, "Scored with a forged adapter.")
        self.assertEqual(self.board_runs(), {})


class PublishedFigureTest(WorldTestCase):
    """A reported figure (a model kept by the maintainers) against a weaker verified run."""

    def setUp(self):
        self.published = ModelUnderTest.objects.create(
            slug="gemini", name="Gemini", organisation="Google"
        )
        self.reported = make_run(self.published, self.spin, FULL, provenance="reported",
                                 source="SysMoBench paper")  # fmt: skip
        self.weak = make_run(self.published, self.spin, WEAK, submitter=self.maintainer,
                             review="private")  # fmt: skip

    def spin_cell(self) -> tuple:
        models = self.client.get(reverse("leaderboard_export", args=["json"])).json()["models"]
        gemini = next(m for m in models if m["slug"] == "gemini")
        return round(gemini["spin"], 6), gemini["runs"]["spin"]["provenance"]

    def test_the_published_figure_changes_only_after_a_maintainer_approves(self):
        self.assertEqual(self.spin_cell(), (1.0, "reported"))
        self.weak.publish(self.maintainer)
        self.assertEqual(self.spin_cell(), (1.0, "reported"))
        self.weak.approve(self.maintainer)
        # A verified run outranks a reported one: the figure drops to the approved run's score.
        self.assertEqual(self.spin_cell(), (0.15, "verified"))

    def test_a_reported_run_is_not_put_through_review(self):
        with self.assertRaises(ReviewError):
            self.reported.reject(self.maintainer, "no")
        self.assertEqual(Run.objects.get(pk=self.reported.pk).review, Run.Review.APPROVED)


class AdminReviewTest(WorldTestCase):
    def setUp(self):
        self.run = make_run(self.model_a, self.spin, FULL, submitter=self.alice, review="pending",
                            published_at=timezone.now())  # fmt: skip
        self.client.force_login(self.maintainer)
        self.url = reverse("admin:leaderboard_run_changelist")

    def act(self, action, **extra):
        data = {"action": action, "_selected_action": [self.run.pk], **extra}
        return self.client.post(self.url, data)

    def test_the_changelist_filters_runs_awaiting_review(self):
        make_run(self.model_b, self.spin, FULL, submitter=self.bob, review="private")
        page = self.client.get(self.url, {"review__exact": "pending"})
        self.assertEqual(list(page.context["cl"].result_list), [self.run])

    def test_approving_asks_for_an_optional_note_then_puts_the_run_on_the_board(self):
        page = self.act("approve_runs")
        self.assertContains(page, "Approve these runs?")
        self.assertEqual(Run.objects.get(pk=self.run.pk).review, Run.Review.PENDING)
        self.act("approve_runs", apply="1", reason="Clean spec.")
        self.run.refresh_from_db()
        self.assertEqual((self.run.review, self.run.reviewed_by, self.run.review_reason),
                         (Run.Review.APPROVED, self.maintainer, "Clean spec."))  # fmt: skip

    def test_rejecting_without_a_reason_is_refused_and_changes_nothing(self):
        page = self.act("reject_runs", apply="1", reason="")
        self.assertContains(page, "Give the submitter a reason")
        self.assertEqual(Run.objects.get(pk=self.run.pk).review, Run.Review.PENDING)
        self.act("reject_runs", apply="1", reason="Not this model's output.")
        self.run.refresh_from_db()
        self.assertEqual((self.run.review, self.run.review_reason),
                         (Run.Review.REJECTED, "Not this model's output."))  # fmt: skip

    def test_the_review_fields_cannot_be_edited_by_hand(self):
        page = self.client.get(reverse("admin:leaderboard_run_change", args=[self.run.pk]))
        self.assertNotIn("review", page.context["adminform"].form.fields)


class OperatorSampleTest(WorldTestCase):
    def test_the_demo_sample_queued_by_the_operator_needs_no_review(self):
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            call_command("submit_sample", "--task", "spin", stdout=io.StringIO())
        run = Run.objects.get(model__slug="demo-reference-specs")
        self.assertEqual((run.review, run.model.owner, len(callbacks)), ("approved", None, 1))
