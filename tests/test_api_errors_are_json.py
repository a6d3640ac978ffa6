"""Every API error is JSON of one shape, {"error": {"code", "message", "fields"}}, with the
matching status: unknown run or URL, wrong method, missing token, oversize body, rate limit,
invalid upload. An unknown task lists the valid slugs (API and form)."""

import json

from django.test import Client, override_settings
from django.urls import reverse

from leaderboard.accounts.tokens import create_token
from tests.base import WorldTestCase


class ApiErrorShapeTest(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.raw_token, _ = create_token(cls.alice, "ci")

    def setUp(self):
        self.api = Client(HTTP_AUTHORIZATION=f"Bearer {self.raw_token}")

    def assert_error(self, response, status, code):
        self.assertEqual(response.status_code, status)
        self.assertEqual(response["Content-Type"], "application/json")
        error = response.json()["error"]
        self.assertEqual(set(error) - {"retry_after"}, {"code", "message", "fields"})
        self.assertEqual(error["code"], code)
        self.assertTrue(error["message"])
        return error

    def test_an_unknown_run_is_a_json_404(self):
        self.assert_error(self.api.get(reverse("api_run", args=[987654])), 404, "not_found")

    def test_an_unknown_api_url_is_a_json_404(self):
        self.assert_error(self.api.get("/api/v1/nothing-here"), 404, "not_found")

    def test_a_wrong_method_is_a_json_405_that_says_which_are_allowed(self):
        response = self.api.delete(reverse("api_runs"))
        self.assert_error(response, 405, "method_not_allowed")
        self.assertEqual(response["Allow"], "GET, HEAD, POST")
        self.assert_error(self.api.delete(reverse("api_leaderboard")), 405, "method_not_allowed")

    def test_a_missing_token_is_a_json_401(self):
        self.assert_error(Client().post(reverse("api_runs"), {}), 401, "unauthorized")

    @override_settings(REQUEST_BODY_MAX_BYTES=1000)
    def test_an_oversize_body_is_a_json_413_that_states_its_size(self):
        body = json.dumps({"task": "spin", "spec_text": "x" * 5000})
        response = self.api.post(reverse("api_runs"), body, content_type="application/json")
        error = self.assert_error(response, 413, "body_too_large")
        self.assertIn(f"is {len(body):,} bytes", error["message"])
        self.assertIn("the limit is 1,000 bytes", error["message"])

    @override_settings(RATE_LIMIT_UPLOADS_PER_IP=(1, 3600))
    def test_a_rate_limited_upload_is_a_json_429_with_retry_after(self):
        url = reverse("api_runs")
        self.api.post(url, "{}", content_type="application/json")
        response = self.api.post(url, "{}", content_type="application/json")
        error = self.assert_error(response, 429, "rate_limited")
        self.assertEqual(int(response["Retry-After"]), error["retry_after"])

    def test_a_wrong_field_type_is_a_json_400_naming_the_field(self):
        body = json.dumps({"task": "spin", "spec_text": ["not", "text"]})
        response = self.api.post(reverse("api_runs"), body, content_type="application/json")
        error = self.assert_error(response, 400, "invalid")
        self.assertEqual(error["fields"], {"spec_text": ["Must be a string."]})

    def test_an_unknown_task_lists_the_valid_slugs(self):
        body = json.dumps({"task": "nope", "model": "model-a", "spec_text": "x"})
        response = self.api.post(reverse("api_runs"), body, content_type="application/json")
        error = self.assert_error(response, 400, "invalid")
        self.assertEqual(error["fields"]["task"], ["Unknown task: choose one of spin, etcd."])
        self.client.force_login(self.alice)
        page = self.client.post(reverse("submit"), {"task": "nope", "spec_text": "x"})
        self.assertEqual(
            page.context["form"].errors["task"], ["Unknown task: choose one of spin, etcd."]
        )
