"""Adapter text is pasted into the generated modules, so text that would break them there is
refused by the adapter check, with a message naming the line and the reason: a comment (which
would swallow what follows it on the line) and a `====`/`----` run (which would end or split the
module). Each attack passed the parse-tree check before. And a new model's name that is taken
says "not available" whoever holds it, never confirming another account's private model."""

import pytest
from django.urls import reverse

from evaluation.inputs.contracts import ContractError, load_contract, parse_adapter
from leaderboard.models import ModelUnderTest, Run
from tests.base import WorldTestCase, make_model, make_run

RELEASE = "  ReleaseLock: ReleaseLock(actor)\n"


@pytest.fixture(scope="module")
def spin():
    return load_contract("spin")


@pytest.mark.parametrize(
    ("attack", "named"),
    [
        ("actions:\n  AcquireLock: AcquireLock(actor) \\* mine\n" + RELEASE, "a comment"),
        ("actions:\n  AcquireLock: AcquireLock(actor) (* x *)\n" + RELEASE, "a comment"),
        ("actions:\n  AcquireLock: |\n    AcquireLock(actor)\n    ====\n" + RELEASE, "===="),
        ("actions:\n  AcquireLock: |\n    AcquireLock(actor)\n    ----\n" + RELEASE, "----"),
        ("variables:\n  pc: |\n    pc \\* a comment\n", "a comment"),
    ],
)
def test_text_that_would_break_a_generated_module_is_refused(spin, attack, named):
    with pytest.raises(ContractError) as refused:
        parse_adapter(attack, spin)
    message = str(refused.value)
    assert named in message
    assert "line 2" in message and "generated modules" in message


def test_the_same_characters_inside_a_string_literal_are_a_value(spin):
    adapter = parse_adapter('variables:\n  pc: IF pc = "----" THEN "\\\\*" ELSE pc\n', spin)
    assert "----" in adapter.variables["pc"]


def test_an_ordinary_multi_line_mapping_still_passes(spin):
    text = "actions:\n  AcquireLock: |\n    \\/ AcquireLock(actor)\n    \\/ ReleaseLock(actor)\n"
    assert parse_adapter(text + RELEASE, spin).actions["AcquireLock"].startswith("\\/ Acq")


class TakenNamesRevealNothingTest(WorldTestCase):
    def setUp(self):
        self.client.force_login(self.alice)

    def refusal(self, name: str) -> str:
        response = self.client.post(reverse("submit"), {
            "task": "spin", "new_model_name": name, "new_model_organisation": "X",
            "spec_text": "---- MODULE spin ----\n====\n"})  # fmt: skip
        return response.context["form"].errors["new_model_name"][0]

    def test_a_private_model_s_name_is_just_not_available(self):
        # model-b is bob's, and none of its runs is public.
        self.assertFalse(Run.objects.filter(model=self.model_b).exists())
        message = self.refusal("Model B")
        self.assertIn("not available", message)
        self.assertNotIn("another account", message)
        self.assertNotIn("exists", message)

    def test_a_published_model_s_name_gets_the_same_words(self):
        public = make_model("public-one")
        make_run(public, self.spin, {"syntax": 1.0})
        self.assertEqual(self.refusal("Public One"), self.refusal("Model B").replace(
            "'Model B'", "'Public One'"))  # fmt: skip
        self.assertEqual(ModelUnderTest.objects.filter(slug="public-one").count(), 1)
