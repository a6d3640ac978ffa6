"""A signed-up user cannot read or touch another account's private run, model or spec, through any
URL of the site or the API; the run's owner can.

The private run's spec and adapter carry a marker string; no response to anyone but its owner may
contain it, and no page may link to the run. `test_every_url_of_the_site_is_covered_here` fails
when a URL is added without being listed here.
"""

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from leaderboard.accounts.tokens import create_token
from leaderboard.models import ApiToken, ModelUnderTest, Run
from leaderboard.submit.forms import SubmitForm
from leaderboard.submit.submissions import submit
from tests.base import (
    WorldTestCase,
    make_action_result,
    make_invariant_result,
    make_run,
    make_window_result,
)

MARKER = "BOBS_PRIVATE_SPEC_3f9c"
REFERENCE = Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla"
SPEC = f"---- MODULE spin ----\n\\* {MARKER}\nVARIABLES lockState, pc\n====\n"
FULL = {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0, "invariant": 1.0}
ADMIN_URLS = ("admin/", "django-rq/")


def private_run_of(model, task, submitter) -> Run:
    run = make_run(model, task, FULL, spec_text=SPEC, adapter_text=f"# {MARKER}\n",
                   submitter=submitter, review=Run.Review.PRIVATE)  # fmt: skip
    conformance = run.phase_results.get(phase="conformance")
    make_action_result(conformance, "AcquireLock", 1, 2, detail={"note": MARKER})
    make_window_result(conformance, "AcquireLock", reason=f"no successor {MARKER}")
    invariant = run.phase_results.get(phase="invariant")
    make_invariant_result(invariant, "MutualExclusion", verdict="violated", reason=MARKER)
    return run


class PrivateRunTest(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        # model-b is bob's and has only this private run; model-a (alice's) has a public one.
        cls.secret = private_run_of(cls.model_b, cls.spin, cls.bob)
        cls.window = cls.secret.phase_results.get(phase="conformance").window_results.get()
        cls.public = make_run(cls.model_a, cls.spin, FULL, submitter=cls.alice)

    def setUp(self):
        self.client.force_login(self.alice)

    def secret_urls(self) -> list[str]:
        pk = self.secret.pk
        return [
            reverse("run_detail", args=[pk]),
            reverse("window_detail", args=[pk, self.window.pk]),
            reverse("run_status", args=[pk]),
            reverse("run_export_json", args=[pk]),
            reverse("run_export_csv", args=[pk]),
            reverse("run_bundle", args=[pk]),
        ]

    def assert_hidden(self, response):
        body = response.content.decode()
        self.assertNotIn(MARKER, body)
        self.assertNotIn(f"/runs/{self.secret.pk}/", body)

    def test_the_run_its_windows_status_and_exports_are_404_for_another_account(self):
        for url in self.secret_urls():
            with self.subTest(url=url):
                response = self.client.get(url)
                self.assertEqual(response.status_code, 404)
                self.assert_hidden(response)

    def test_the_run_its_windows_status_and_exports_are_404_for_an_anonymous_visitor(self):
        self.client.logout()
        for url in self.secret_urls():
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 404)

    def test_the_owner_reads_every_one_of_them(self):
        self.client.force_login(self.bob)
        for url in self.secret_urls():
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 200)
        page = self.client.get(reverse("run_detail", args=[self.secret.pk]))
        self.assertContains(page, MARKER)
        self.assertContains(page, "only its submitter can see this run")

    def test_resubmitting_from_it_does_not_prefill_its_spec(self):
        response = self.client.get(reverse("submit"), {"from": self.secret.pk})
        self.assertEqual(response.status_code, 200)
        self.assert_hidden(response)

    def test_compare_does_not_show_it_or_offer_it_as_a_partner(self):
        pair = {"run_a": self.public.pk, "run_b": self.secret.pk}
        for query in (pair, {"run_a": self.secret.pk}, {"run_a": self.public.pk}):
            with self.subTest(query=query):
                self.assert_hidden(self.client.get(reverse("compare"), query))
        response = self.client.get(reverse("compare"), {"a": "model-a", "b": "model-b"})
        self.assertContains(response, "Unknown model: model-b")

    def test_the_compare_exports_refuse_it_like_the_page(self):
        pair = {"run_a": self.public.pk, "run_b": self.secret.pk}
        for query in (pair, {"a": "model-a", "b": "model-b"}):
            for fmt in ("csv", "json"):
                with self.subTest(query=query, fmt=fmt):
                    response = self.client.get(reverse("compare_export", args=[fmt]), query)
                    self.assertEqual(response.status_code, 400)
                    self.assert_hidden(response)
                    self.assertNotIn(f'"run_id": {self.secret.pk}', response.content.decode())

    def test_its_model_page_and_the_task_page_do_not_show_it(self):
        self.assertEqual(
            self.client.get(reverse("model_detail", args=["model-b"])).status_code, 404
        )
        self.assert_hidden(self.client.get(reverse("task_detail", args=["spin"])))
        self.assert_hidden(self.client.get(reverse("model_detail", args=["model-a"])))
        self.assert_hidden(self.client.get(reverse("my_runs")))

    def test_the_board_its_exports_and_the_task_counts_leave_it_out(self):
        for url in (
            reverse("leaderboard"),
            reverse("leaderboard_export", args=["csv"]),
            reverse("leaderboard_export", args=["json"]),
            reverse("api_leaderboard"),
        ):
            with self.subTest(url=url):
                response = self.client.get(url)
                self.assert_hidden(response)
                self.assertNotIn("model-b", response.content.decode())
        tasks = {t.slug: n for t, _, n in self.client.get(reverse("task_list")).context["tasks"]}
        self.assertEqual(tasks["spin"], 1)

    def test_another_account_s_token_cannot_read_it_but_the_owner_s_can(self):
        alice_token, _ = create_token(self.alice, "ci")
        bob_token, _ = create_token(self.bob, "ci")
        url = reverse("api_run", args=[self.secret.pk])
        response = self.client.get(url, HTTP_AUTHORIZATION=f"Bearer {alice_token}")
        self.assertEqual(response.status_code, 404)
        self.assert_hidden(response)
        response = self.client.get(url, HTTP_AUTHORIZATION=f"Bearer {bob_token}")
        self.assertEqual(response.json()["spec_text"], SPEC)

    def test_another_account_cannot_revoke_the_owner_s_token(self):
        _, token = create_token(self.bob, "ci")
        self.client.post(reverse("token_revoke", args=[token.pk]))
        self.assertTrue(ApiToken.objects.filter(pk=token.pk).exists())
        self.assertNotContains(self.client.get(reverse("my_runs")), 'id="token-list"')

    def test_another_account_cannot_publish_it(self):
        response = self.client.post(reverse("run_publish", args=[self.secret.pk]))
        self.assertEqual(response.status_code, 404)
        token, _ = create_token(self.alice, "ci")
        response = self.client.post(reverse("api_run_publish", args=[self.secret.pk]),
                                    HTTP_AUTHORIZATION=f"Bearer {token}")  # fmt: skip
        self.assertEqual(response.status_code, 404)
        self.secret.refresh_from_db()
        self.assertEqual(self.secret.review, Run.Review.PRIVATE)


class OwnModelsOnlyTest(WorldTestCase):
    """Submitting for another account's model is refused, by form and by API, before any lint."""

    def setUp(self):
        self.client.force_login(self.alice)

    def test_the_form_refuses_another_account_s_model(self):
        response = self.client.post(
            reverse("submit"), {"task": "spin", "model": "model-b", "spec_text": SPEC}
        )
        self.assertEqual(response.status_code, 200)
        self.assertIn("only for your own models", response.context["form"].errors["model"][0])
        self.assertFalse(Run.objects.exists())

    def test_the_form_offers_only_the_user_s_own_models(self):
        form = self.client.get(reverse("submit")).context["form"]
        self.assertEqual(list(form.fields["model"].queryset), [self.model_a])

    def test_a_new_model_may_not_take_another_account_s_model_name(self):
        response = self.client.post(reverse("submit"), {
            "task": "spin", "new_model_name": "Model B", "new_model_organisation": "X",
            "spec_text": SPEC})  # fmt: skip
        errors = response.context["form"].errors["new_model_name"]
        self.assertIn("is not available", errors[0])
        self.assertNotIn("another account", errors[0])
        self.assertEqual(ModelUnderTest.objects.count(), 2)

    def test_the_api_refuses_another_account_s_model(self):
        token, _ = create_token(self.alice, "ci")
        response = self.client.post(
            reverse("api_runs"),
            json.dumps({"task": "spin", "model": "model-b", "spec_text": SPEC}),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {token}",
        )
        self.assertEqual(response.status_code, 400)
        self.assertIn("model", response.json()["error"]["fields"])
        self.assertFalse(Run.objects.exists())

    def test_the_maintainers_submit_for_the_models_nobody_owns(self):
        published = ModelUnderTest.objects.create(slug="published", name="P", organisation="O")
        self.assertTrue(published.accepts_runs_from(self.maintainer))
        self.assertFalse(published.accepts_runs_from(self.alice))
        self.assertFalse(self.model_b.accepts_runs_from(self.maintainer))


def _patterns(resolver, prefix=""):
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry.name


def test_every_url_of_the_site_is_covered_here():
    """The URLs these access tests (and tests/test_anonymous_read_only.py) go through; the admin
    and the rq dashboard are Django's own staff-only sites."""
    covered = {
        "leaderboard", "leaderboard_export", "model_detail", "task_list", "task_detail",
        "methodology", "run_detail", "window_detail", "run_publish", "run_status",
        "run_export_json", "run_export_csv", "submit", "compare", "compare_export", "api_runs",
        "api_run",
        "api_run_publish",
        "api_leaderboard", "signup", "login", "logout", "password_change",
        # Release pages list only public runs (tests/test_run_bundle_and_release_dataset.py);
        # a run's bundle is among the secret URLs above.
        "release_list", "release_list_json", "release_detail", "release_diff",
        "release_diff_json", "release_dataset", "run_bundle",
        # A retired release's held-out traces: no run in them, and a 404 until the release is
        # retired (tests/test_retired_releases_publish_their_heldout_traces.py).
        "release_heldout",
        "password_change_done", "my_runs", "token_create", "token_revoke",
        # Issue 35 (tests/test_badge_feed_and_dataset_for_other_sites.py): a badge is a 404 for
        # a model the visitor may not see; the feed and the dataset read only the board's runs;
        # the API page is docs/API.md.
        "api_docs", "badge", "feed", "dataset_card", "dataset_jsonl", "dataset_zip",
    }  # fmt: skip
    site = {
        name
        for route, name in _patterns(get_resolver())
        if not route.startswith(ADMIN_URLS) and name
    }
    assert site == covered


@pytest.mark.tla
class NameRaceTest(WorldTestCase):
    def test_a_model_name_taken_between_the_check_and_the_save_is_a_form_error(self):
        data = {"task": "spin", "new_model_name": "Fresh", "new_model_organisation": "O",
                "spec_text": REFERENCE.read_text()}  # fmt: skip
        form = SubmitForm(data, user=self.alice)
        self.assertTrue(form.is_valid(), form.errors)
        ModelUnderTest.objects.create(slug="fresh", name="Fresh", organisation="B", owner=self.bob)
        self.assertIsNone(submit(form, self.alice))
        self.assertIn("created a moment ago", form.errors["new_model_name"][0])
        self.assertFalse(Run.objects.exists())
