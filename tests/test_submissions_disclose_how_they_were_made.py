"""Submissions disclose how the spec was made (docs/decisions/0025-cell-policy-and-disclosure.md):
specs generated and submitted, repair rounds, LLM or agent, date, tokens, cost. All optional; what
is given is validated alike on the form and the API (a clear error, nothing queued, nothing the
submitter typed lost), stored on the run, and shown on the run and model pages and in the run export
("not disclosed" where absent).
"""

import json
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from leaderboard.accounts.tokens import create_token
from leaderboard.models import Run
from leaderboard.shared.disclosure import describe, tokens_text
from tests.base import WorldTestCase, make_run

GOOD = (Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla").read_text()

FULL = {
    "specs_generated": "50",
    "specs_submitted": "3",
    "repair_rounds": "2",
    "generated_by": "agent",
    "generated_on": "2026-11-20",
    "tokens_in": "1100000",
    "tokens_out": "134000",
    "cost_usd": "4.50",
}
TOMORROW = (timezone.now() + timedelta(days=2)).date().isoformat()


class FormDisclosureTest(WorldTestCase):
    def setUp(self):
        self.client.force_login(self.alice)

    def post(self, **disclosure):
        fields = {"task": "spin", "model": "model-a", "spec_text": GOOD, **disclosure}
        with self.captureOnCommitCallbacks(execute=False):
            return self.client.post(reverse("submit"), fields)

    def test_the_form_stores_what_is_disclosed(self):
        response = self.post(**FULL)
        run = Run.objects.get()
        self.assertRedirects(response, run.get_absolute_url(), fetch_redirect_response=False)
        self.assertEqual(
            (run.specs_generated, run.specs_submitted, run.repair_rounds, run.generated_by),
            (50, 3, 2, "agent"),
        )
        self.assertEqual(run.generated_on, date(2026, 11, 20))
        self.assertEqual((run.tokens_in, run.tokens_out, run.cost_usd),
                         (1_100_000, 134_000, Decimal("4.50")))  # fmt: skip

    def test_nothing_disclosed_is_fine_and_reads_not_disclosed(self):
        self.post()
        run = Run.objects.get()
        self.assertIsNone(run.specs_generated)
        self.assertEqual(run.generated_by, "")
        self.assertContains(self.client.get(run.get_absolute_url()), "not disclosed")

    def test_bad_input_gets_a_clear_error_and_keeps_what_was_typed(self):
        cases = {
            "specs_generated": ("-1", "at least 1"),
            "repair_rounds": ("two", "whole number"),
            "generated_on": (TOMORROW, "is in the future"),
            "tokens_in": (str(10**13), "a digit too many"),
            "cost_usd": ("-3", "cannot be negative"),
            "generated_by": ("human", "Select a valid choice"),
        }
        for field, (value, message) in cases.items():
            with self.subTest(field=field):
                response = self.post(**{field: value})
                self.assertEqual(response.status_code, 200)
                errors = response.context["form"].errors
                self.assertIn(message, " ".join(errors[field]))
                self.assertEqual(list(errors), [field])
                # The spec and the value are on screen again: nothing typed is lost.
                self.assertContains(response, "EXTENDS")
                self.assertEqual(response.context["form"]["spec_text"].value(), GOOD)
                self.assertEqual(response.context["form"][field].value(), value)
                self.assertFalse(Run.objects.exists())

    def test_more_submitted_than_generated_is_refused(self):
        response = self.post(specs_generated="2", specs_submitted="5")
        self.assertIn(
            "You submit 5 specs but generated only 2",
            response.context["form"].errors["specs_submitted"][0],
        )
        self.assertFalse(Run.objects.exists())

    def test_a_date_before_any_llm_wrote_tla_is_refused(self):
        response = self.post(generated_on="1999-01-01")
        self.assertIn("check the year", response.context["form"].errors["generated_on"][0])


class ApiDisclosureTest(WorldTestCase):
    def setUp(self):
        self.token, _ = create_token(self.alice, "ci")

    def post(self, **disclosure):
        payload = {"task": "spin", "model": "model-a", "spec_text": GOOD, **disclosure}
        with self.captureOnCommitCallbacks(execute=False):
            return self.client.post(
                reverse("api_runs"),
                json.dumps(payload),
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {self.token}",
            )

    def test_the_api_takes_numbers_and_stores_them(self):
        response = self.post(specs_generated=50, specs_submitted=3, repair_rounds=0,
                             generated_by="llm", generated_on="2026-11-20",
                             tokens_in=1200, tokens_out=300, cost_usd=0.75)  # fmt: skip
        self.assertEqual(response.status_code, 201, response.content)
        run = Run.objects.get(pk=response.json()["id"])
        self.assertEqual((run.specs_generated, run.specs_submitted, run.repair_rounds), (50, 3, 0))
        self.assertEqual((run.generation_tokens, run.cost_usd), (1500, Decimal("0.75")))

    def test_wrong_types_and_values_are_field_errors_and_nothing_is_created(self):
        for payload, field, message in (
            ({"specs_generated": True}, "specs_generated", "Must be a number"),
            ({"tokens_out": [1]}, "tokens_out", "Must be a number"),
            ({"generated_on": 20261120}, "generated_on", "Must be a string"),
            ({"specs_generated": 2.5}, "specs_generated", "whole number"),
            ({"repair_rounds": -1}, "repair_rounds", "at least 0"),
            ({"generated_on": TOMORROW}, "generated_on", "is in the future"),
            ({"specs_generated": 1, "specs_submitted": 4}, "specs_submitted", "generated only 1"),
            ({"cost_usd": 1.234}, "cost_usd", "at most 2 decimals"),
        ):
            with self.subTest(payload=payload):
                response = self.post(**payload)
                self.assertEqual(response.status_code, 400)
                fields = response.json()["error"]["fields"]
                self.assertEqual(list(fields), [field])
                self.assertIn(message, fields[field][0])
                self.assertFalse(Run.objects.exists())

    def test_the_run_export_carries_the_disclosure(self):
        self.post(specs_generated=50, specs_submitted=3, generated_by="agent", tokens_in=1000)
        run = Run.objects.get()
        body = self.client.get(
            reverse("api_run", args=[run.pk]), HTTP_AUTHORIZATION=f"Bearer {self.token}"
        ).json()
        self.assertEqual(
            body["disclosure"],
            {"specs_generated": 50, "specs_submitted": 3, "repair_rounds": None,
             "generated_by": "agent", "generated_on": None, "tokens_in": 1000,
             "tokens_out": None, "generation_tokens": 1000, "cost_usd": None},
        )  # fmt: skip


class DisclosureConstraintTest(WorldTestCase):
    def test_the_database_refuses_more_submitted_than_generated_whatever_writes_it(self):
        # The admin or a script bypasses the form; the check constraint still holds.
        with self.assertRaises(IntegrityError), transaction.atomic():
            make_run(self.model_a, self.spin, specs_generated=2, specs_submitted=3)
        make_run(self.model_a, self.spin, specs_generated=3, specs_submitted=3)
        self.assertEqual(Run.objects.count(), 1)


class DisclosureShownTest(WorldTestCase):
    def setUp(self):
        phases = {"syntax": 1.0, "runtime": 1.0}
        self.disclosed = make_run(
            self.model_a, self.spin, phases, specs_generated=50, specs_submitted=3,
            repair_rounds=2, generated_by="agent", generated_on=date(2026, 11, 20),
            tokens_in=1_100_000, tokens_out=134_000,
        )  # fmt: skip
        self.silent = make_run(self.model_a, self.etcd, phases)

    def test_the_run_page_says_how_the_spec_was_made(self):
        page = self.client.get(self.disclosed.get_absolute_url()).content.decode()
        line = page.split('id="disclosure"')[1].split("</p>")[0]
        self.assertIn(
            "3 of 50 generated specs submitted; 2 repair rounds; Agent; generated 2026-11-20; "
            "1.2 M tokens (1.1 M in, 134 k out); not disclosed: cost",
            line,
        )

    def test_the_model_page_lists_each_task_s_runs_with_their_disclosure(self):
        page = self.client.get(self.model_a.get_absolute_url()).content.decode()
        table = page.split('id="model-disclosure"')[1].split("</table>")[0]
        spin = table.split(f'data-run="{self.disclosed.pk}"')[1].split("</tr>")[0]
        etcd = table.split(f'data-run="{self.silent.pk}"')[1].split("</tr>")[0]
        self.assertIn("3 of 50 generated specs submitted", spin)
        self.assertIn(">1.2 M<", spin)
        self.assertIn(">not disclosed<", etcd)

    def test_the_json_export_has_the_fields(self):
        body = self.client.get(reverse("run_export_json", args=[self.disclosed.pk])).json()
        self.assertEqual(body["disclosure"]["specs_generated"], 50)
        self.assertEqual(body["disclosure"]["generated_on"], "2026-11-20")
        self.assertEqual(body["disclosure"]["generation_tokens"], 1_234_000)

    def test_a_reported_run_says_not_published_rather_than_not_disclosed(self):
        reported = make_run(self.model_b, self.spin, {"syntax": 1.0}, provenance="reported",
                            source="SysMoBench paper", tokens_in=500, tokens_out=20)  # fmt: skip
        text = describe(reported)["text"]
        self.assertTrue(text.startswith("520 tokens (500 in, 20 out); not published:"), text)


def test_token_counts_read_at_a_glance():
    assert [tokens_text(n) for n in (950, 45_100, 134_000, 1_234_567, 2 * 10**9)] == [
        "950",
        "45.1 k",
        "134 k",
        "1.2 M",
        "2 G",
    ]
