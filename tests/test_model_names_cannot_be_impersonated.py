"""A new account cannot take a published model's name (docs/decisions/0029-abuse-bounds.md):
"Gemini 3.1 Pro" of "Google" was accepted because its slug differed by a hyphen, and anonymous
visitors then saw a page of that title and two identical names in the compare picker. Decision: a
display name that equals another model's after folding case, compatibility forms and punctuation is
refused when a model is created (form and API alike), in the words a taken slug gets."""

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from leaderboard.accounts.tokens import create_token
from leaderboard.models import ModelUnderTest, Run
from leaderboard.submit.forms import folded, name_taken
from tests.base import WorldTestCase, make_model, make_phase_result, make_run, make_user

SPIN = (Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla").read_text()

IMPERSONATIONS = ["Gemini 3.1 Pro", "GEMINI 3.1 PRO", "gemini-3-1-pro!", "Gemini\u00a031 Pro",
                  "Ｇｅｍｉｎｉ 3.1 Pro"]  # fmt: skip
# Look-alike letters (docs/decisions/0029-abuse-bounds.md): each reads "Gemini 3.1 Pro" on screen.
LOOK_ALIKES = {
    "Cyrillic e": "G\u0435mini 3.1 Pro",
    "Cyrillic o and i": "Gem\u0456ni 3.1 Pr\u043e",
    "Greek capital O": "GEMINI 3.1 PR\u039f",
    "mixed scripts": "G\u0435m\u03b9ni 3.1 Pr\u0585",  # Cyrillic, Greek, Armenian
    "mathematical bold": "\U0001d406\U0001d41e\U0001d426\U0001d422\U0001d427\U0001d422 3.1 Pro",
    "zero-width space": "Gem\u200bini 3.1 Pro",
    "zero-width joiner": "Gemini\u200d 3.1 Pro",
    "combining accent": "Gemi\u0301ni 3.1 Pro",
    "accented letter": "Gem\u00efni 3.1 Pro",
}
# Honest names that only share words or scripts with the published ones. (A name needs an ASCII
# letter or digit for its slug, so names wholly in another script are checked by name_taken.)
DISTINCT = ["Qwen 3", "Gemini 3.1 Flash", "Gemini 3.1 Про", "Qwen 3 通义千问"]
OTHER_SCRIPTS = ["通义千问", "ГигаЧат", "Джемини 3.1 Про"]


def submit_form_errors(user, name: str) -> dict:
    """The submit form's errors for a new model called `name`, posted by `user`. No spec: the
    form stops before the upload check, with the model's errors decided."""
    client = Client()
    client.force_login(user)
    response = client.post(reverse("submit"), {"task": "spin", "new_model_name": name,
                                               "new_model_organisation": "Google"})  # fmt: skip
    return response.context["form"].errors


class ImpersonationTest(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        # As published: no owner, a slug of its own.
        cls.gemini = make_model("gemini-3-1-pro", name="Gemini 3.1 Pro", organisation="Google")
        make_run(cls.gemini, cls.spin, {"syntax": 1.0})
        cls.carol = make_user("carol")

    def form_errors(self, name: str) -> dict:
        return submit_form_errors(self.carol, name)

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


class LookAlikeLetterTest(WorldTestCase):
    """The attack the folding of case and punctuation let through: letters of another script,
    invisible characters or accents that leave the name looking the same."""

    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.gemini = make_model("gemini-3-1-pro", name="Gemini 3.1 Pro", organisation="Google")
        cls.qwen = make_model("qwen-2-5", name="Qwen 2.5", organisation="Alibaba")
        cls.mallory = make_user("mallory")

    def form_errors(self, name: str) -> dict:
        return submit_form_errors(self.mallory, name)

    def test_a_look_alike_of_a_published_name_is_refused(self):
        for attack, name in LOOK_ALIKES.items():
            with self.subTest(attack=attack, name=name):
                self.assertNotEqual(name, "Gemini 3.1 Pro")
                errors = self.form_errors(name)
                self.assertIn("is not available", errors.get("new_model_name", [""])[0])
        self.assertFalse(ModelUnderTest.objects.filter(owner=self.mallory).exists())

    def test_honest_distinct_names_pass(self):
        for name in DISTINCT:
            with self.subTest(name=name):
                self.assertNotIn("new_model_name", self.form_errors(name))

    def test_names_in_other_scripts_are_not_taken(self):
        for name in OTHER_SCRIPTS:
            with self.subTest(name=name):
                self.assertFalse(name_taken(name))

    def test_accents_stay_on_letters_not_read_as_latin(self):
        # Japanese voiced kana and Cyrillic "й" are other letters, not decorated ones.
        self.assertNotEqual(folded("\u30ac"), folded("\u30ab"))
        self.assertNotEqual(folded("\u0439"), folded("\u0438"))
        self.assertNotEqual(
            folded("\u0928\u092e\u0938\u094d\u0924\u0947"), folded("\u0928\u092e\u0938\u0924")
        )
