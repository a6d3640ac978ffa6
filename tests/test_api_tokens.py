"""API tokens and the JSON API: only a hash is stored, the bearer token is required,
uploads lint like the form and answer 201/400."""

import hashlib
import io
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from leaderboard.accounts.tokens import create_token, verify_token
from leaderboard.models import ApiToken, Run
from tests.base import WorldTestCase, make_phase_result, make_run

GOOD = (Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla").read_text()


class TokenTest(WorldTestCase):
    def setUp(self):
        self.user = self.alice

    def test_only_the_sha256_is_stored(self):
        raw, token = create_token(self.user, "ci")
        token.refresh_from_db()
        self.assertEqual(token.token_hash, hashlib.sha256(raw.encode()).hexdigest())
        stored = json.dumps(list(ApiToken.objects.values()), default=str)
        self.assertNotIn(raw, stored)

    def test_it_verifies_the_token_and_marks_it_used(self):
        raw, token = create_token(self.user, "ci")
        self.assertIsNone(token.last_used_at)
        self.assertEqual(verify_token(raw), self.user)
        token.refresh_from_db()
        self.assertIsNotNone(token.last_used_at)
        self.assertIsNone(verify_token(raw + "x"))
        self.assertIsNone(verify_token(""))

    def test_a_deactivated_user_s_token_stops_working(self):
        raw, _ = create_token(self.user, "ci")
        self.user.is_active = False
        self.user.save()
        self.assertIsNone(verify_token(raw))

    def test_the_command_says_how_to_create_a_missing_user(self):
        with self.assertRaisesMessage(CommandError, "no user named 'carol': create one with"):
            call_command("create_api_token", "carol", "laptop")

    def test_the_command_prints_a_working_token_once(self):
        out, err = io.StringIO(), io.StringIO()
        call_command("create_api_token", "alice", "laptop", stdout=out, stderr=err)
        raw = out.getvalue().strip()
        self.assertEqual(verify_token(raw), self.user)
        self.assertIn("not shown again", err.getvalue())
        self.assertEqual(ApiToken.objects.get().name, "laptop")


class ApiTest(WorldTestCase):
    def setUp(self):
        self.user = self.alice
        self.raw, _ = create_token(self.user, "ci")
        # A CSRF-enforcing client: the token-authenticated API must work without a CSRF cookie.
        self.api = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Bearer {self.raw}")

    def post_run(self, payload, client=None):
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            response = (client or self.api).post(
                reverse("api_runs"), json.dumps(payload), content_type="application/json"
            )
        self.queued = callbacks
        return response

    def test_it_refuses_requests_without_a_valid_token(self):
        anonymous = Client(enforce_csrf_checks=True)
        self.assertEqual(self.post_run({"task": "spin"}, client=anonymous).status_code, 401)
        forged = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION="Bearer smb_forged")
        self.assertEqual(self.post_run({"task": "spin"}, client=forged).status_code, 401)
        run = make_run(self.model_a, self.spin, phases={"syntax": 1.0})
        self.assertEqual(anonymous.get(reverse("api_run", args=[run.pk])).status_code, 401)
        self.assertEqual(Run.objects.count(), 1)

    def test_lint_errors_come_back_as_field_errors(self):
        response = self.post_run(
            {
                "task": "spin",
                "model": "model-a",
                "spec_text": GOOD.replace("EXTENDS TLC", "EXTENDS TLC, IOUtils"),
                "cfg_text": "CONSTANTS\n  Threads",
            }
        )
        self.assertEqual(response.status_code, 400)
        fields = response.json()["error"]["fields"]
        self.assertIn("EXTENDS IOUtils is not allowed", fields["spec_text"][0])
        self.assertIn("line 2: Threads has no value", fields["cfg_text"][0])
        self.assertEqual((Run.objects.count(), self.queued), (0, []))

    def test_an_unknown_task_is_a_field_error(self):
        response = self.post_run({"task": "nosuch", "model": "model-a", "spec_text": GOOD})
        self.assertEqual(response.status_code, 400)
        self.assertIn("task", response.json()["error"]["fields"])

    def test_a_body_that_is_not_json_is_a_400(self):
        response = self.api.post(reverse("api_runs"), "spec", content_type="application/json")
        self.assertEqual(response.status_code, 400)

    @pytest.mark.tla
    def test_it_creates_a_queued_run_and_a_new_model(self):
        response = self.post_run(
            {"task": "spin", "new_model_name": "API Model", "new_model_organisation": "Org C",
             "spec_text": GOOD}
        )  # fmt: skip
        self.assertEqual(response.status_code, 201, response.content)
        body = response.json()
        run = Run.objects.get(pk=body["id"])
        self.assertEqual((run.status, run.spec_text, run.model.slug), ("queued", GOOD, "api-model"))
        self.assertEqual(run.submitter, self.user)
        self.assertTrue(body["urls"]["page"].endswith(reverse("run_detail", args=[run.pk])))
        self.assertEqual(len(self.queued), 1)

    def test_it_returns_a_run_with_its_results(self):
        run = make_run(self.model_a, self.spin, status="running")
        make_phase_result(run, "syntax", 1.0)
        body = self.api.get(reverse("api_run", args=[run.pk])).json()
        self.assertEqual(body["status"], "running")
        self.assertEqual(body["phases"][0]["phase"], "syntax")
        self.assertEqual(body["phases"][0]["score"], 1.0)
        self.assertEqual(body["progress"]["phases"][1]["status"], "pending")

    def test_the_leaderboard_endpoint_serves_the_board_export(self):
        make_run(self.model_a, self.spin, phases={"syntax": 1.0, "runtime": 1.0})
        body = self.client.get(reverse("api_leaderboard")).json()
        self.assertEqual([m["model"] for m in body["models"]][:1], ["Model A"])
