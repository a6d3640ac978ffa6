"""A new account cannot take a published model's name (docs/decisions/0029-abuse-bounds.md): "Gemini
3.1 Pro" of
"Google" was accepted because its slug differed by a hyphen, and anonymous visitors then saw a
page of that title and two identical names in the compare picker. Decision: a display name
that equals another model's after folding case, compatibility forms and punctuation is refused
when a model is created (form and API alike), in the words a taken slug gets."""

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from leaderboard.accounts.tokens import create_token
from leaderboard.models import ModelUnderTest, Run
from leaderboard.submit.forms import folded
from tests.base import WorldTestCase, make_model, make_phase_result, make_run, make_user

SPIN = (Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla").read_text()

IMPERSONATIONS = ["Gemini 3.1 Pro", "GEMINI 3.1 PRO", "gemini-3-1-pro!", "Gemini\u00a031 Pro",
                  "Ｇｅｍｉｎｉ 3.1 Pro"]  # fmt: skip


class ImpersonationTest(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        # As published: no owner, a slug of its own.
        cls.gemini = make_model("gemini-3-1-pro", name="Gemini 3.1 Pro", organisation="Google")
        make_run(cls.gemini, cls.spin, {"syntax": 1.0})
        cls.carol = make_user("carol")

    def form_errors(self, name: str) -> dict:
        client = Client()
        client.force_login(self.carol)
        # No spec: the form stops before the upload check, with the model's errors decided.
        response = client.post(reverse("submit"), {"task": "spin", "new_model_name": name,
                                                   "new_model_organisation": "Google"})  # fmt: skip
        return response.context["form"].errors

    def test_a_name_equal_after_folding_is_refused_on_the_form(self):
        for name in IMPERSONATIONS:
            with self.subTest(name=name):
                errors = self.form_errors(name)
                self.assertIn("is not available", errors["new_model_name"][0])
        self.assertEqual(ModelUnderTest.objects.filter(owner=self.carol).count(), 0)

    def test_the_api_refuses_it_in_the_same_words(self):
        raw, _ = create_token(self.carol, "ci")
        body = {"task": "spin", "new_model_name": "Gemini 3.1 Pro",
                "new_model_organisation": "Google", "spec_text": "x"}  # fmt: skip
        response = Client().post(reverse("api_runs"), json.dumps(body),
                                 content_type="application/json",
                                 HTTP_AUTHORIZATION=f"Bearer {raw}")  # fmt: skip
        self.assertEqual(response.status_code, 400)
        self.assertIn("is not available", response.json()["error"]["fields"]["new_model_name"][0])

    @pytest.mark.tla
    def test_an_anonymous_visitor_sees_one_such_name_in_the_compare_picker(self):
        # The whole attack: a valid upload under the name, published and approved.
        client = Client()
        client.force_login(self.carol)
        client.post(
            reverse("submit"),
            {
                "task": "spin",
                "new_model_name": "Gemini 3.1 Pro",
                "new_model_organisation": "Google",
                "spec_text": SPIN,
            },
        )
        for run in Run.objects.filter(submitter=self.carol):
            make_phase_result(run, "syntax", 1.0)
            run.status, run.review = Run.Status.FINISHED, Run.Review.APPROVED
            run.save()
        page = Client().get(reverse("compare")).content.decode()
        # Once in each picker (A and B).
        pickers = page.count("<select")
        self.assertGreaterEqual(pickers, 1)
        self.assertEqual(page.count(">Gemini 3.1 Pro</option>"), pickers)

    def test_a_name_that_differs_is_accepted_and_ones_own_name_points_to_the_picker(self):
        self.assertNotIn("new_model_name", self.form_errors("Gemini 3.1 Pro Lab"))
        make_model("carols-model", name="Carol's Model", owner=self.carol)
        errors = self.form_errors("carols model")
        self.assertIn("You have a model", errors["new_model_name"][0])

    def test_folding_keeps_letters_and_digits_of_every_script(self):
        self.assertEqual(folded("Gemini 3.1 Pro"), folded("gemini-31-PRO"))
        self.assertNotEqual(folded("Qwen 2"), folded("Qwen 3"))
        self.assertEqual(folded("通义 千问"), "通义千问")
