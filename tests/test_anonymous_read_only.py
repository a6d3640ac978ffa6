"""An anonymous visitor reads the board and the public runs, and changes nothing: every write
(form, API, publish, account pages, admin) sends them to sign in, answers 401, or refuses."""

import json

from django.urls import reverse

from leaderboard.models import ModelUnderTest, Run
from tests.base import WorldTestCase, make_phase_result, make_run, make_window_result

FULL = {"syntax": 1.0, "runtime": 1.0, "conformance": 0.5, "invariant": 1.0}
SPEC = "---- MODULE spin ----\nVARIABLES lockState\n====\n"


class AnonymousVisitorTest(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.public_run = make_run(cls.model_a, cls.spin, FULL, submitter=cls.alice)
        conformance = cls.public_run.phase_results.get(phase="conformance")
        cls.window = make_window_result(conformance)
        cls.private = make_run(cls.model_a, cls.etcd, submitter=cls.alice, review="private")
        make_phase_result(cls.private, "syntax", 1.0)

    def counts(self):
        return (
            Run.objects.count(),
            ModelUnderTest.objects.count(),
            list(Run.objects.order_by("pk").values_list("review", flat=True)),
        )

    def test_it_reads_the_board_the_pages_and_the_public_runs(self):
        pk = self.public_run.pk
        for url in (
            reverse("leaderboard"),
            reverse("leaderboard_export", args=["csv"]),
            reverse("leaderboard_export", args=["json"]),
            reverse("api_leaderboard"),
            reverse("task_list"),
            reverse("task_detail", args=["spin"]),
            reverse("model_detail", args=["model-a"]),
            reverse("methodology"),
            reverse("run_detail", args=[pk]),
            reverse("window_detail", args=[pk, self.window.pk]),
            reverse("run_status", args=[pk]),
            reverse("run_export_json", args=[pk]),
            reverse("run_export_csv", args=[pk]),
            reverse("compare") + f"?run_a={pk}",
            reverse("compare") + "?a=model-a&b=model-b",
            reverse("compare_export", args=["csv"]) + "?a=model-a&b=model-a",
            reverse("compare_export", args=["json"]) + "?a=model-a&b=model-a",
            reverse("submit"),
            reverse("login"),
            reverse("signup"),
        ):
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 200)

    def test_the_run_page_names_the_submitter_and_says_it_is_on_the_board(self):
        page = self.client.get(reverse("run_detail", args=[self.public_run.pk]))
        self.assertContains(page, '<strong class="submitter">alice</strong>', html=False)
        self.assertContains(page, "<strong>on the board</strong>", html=False)
        self.assertNotContains(page, "publish-button")

    def test_the_run_export_names_the_submitter_and_the_review_state(self):
        body = self.client.get(reverse("run_export_json", args=[self.public_run.pk])).json()
        self.assertEqual((body["submitter"], body["review"]), ("alice", "approved"))

    def test_the_submit_page_asks_for_an_account_and_shows_no_form(self):
        page = self.client.get(reverse("submit"), {"from": self.public_run.pk})
        self.assertContains(page, "Submitting needs an account")
        self.assertNotContains(page, "submit-form")
        self.assertNotContains(page, self.public_run.spec_text)

    def test_every_write_is_refused_and_nothing_changes(self):
        before = self.counts()
        login = reverse("login")
        form = {"task": "spin", "new_model_name": "Anon", "new_model_organisation": "X",
                "spec_text": SPEC}  # fmt: skip
        for url, data in (
            (reverse("submit"), form),
            (reverse("run_publish", args=[self.private.pk]), {}),
            (reverse("password_change"), {}),
        ):
            with self.subTest(url=url):
                response = self.client.post(url, data)
                self.assertEqual(response.status_code, 302)
                self.assertTrue(response["Location"].startswith(login), response["Location"])
        api = self.client.post(
            reverse("api_runs"), json.dumps(form), content_type="application/json"
        )
        self.assertEqual(api.status_code, 401)
        for url in (reverse("my_runs"), reverse("admin:leaderboard_run_changelist"),
                    "/django-rq/"):  # fmt: skip
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 302)
        self.assertEqual(self.counts(), before)

    def test_the_admin_review_actions_need_a_maintainer(self):
        before = self.counts()
        response = self.client.post(
            reverse("admin:leaderboard_run_changelist"),
            {"action": "approve_runs", "_selected_action": [self.private.pk], "apply": "1"},
        )
        self.assertEqual(response.status_code, 302)
        self.assertIn(reverse("admin:login"), response["Location"])
        self.assertEqual(self.counts(), before)
