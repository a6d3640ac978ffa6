"""The seven inputs that made the site answer 500 (docs/decisions/0028-access-and-hostile-input.md)
now get a specific answer each: non-finite and overflowing weights on every board, NUL in a compare
slug, non-ASCII digits in ids, a 100,000-bracket JSON body, a lone surrogate in a spec, a
1,000-bracket adapter, a NUL byte in a spec comment. Nothing is saved for any of them."""

import json
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from leaderboard.accounts.tokens import create_token
from leaderboard.models import Run
from tests.base import WorldTestCase, make_run

FULL = {"syntax": 1.0, "runtime": 1.0, "conformance": 0.5, "invariant": 1.0}
GOOD = (Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla").read_text()
BOARDS = ("leaderboard", "api_leaderboard")


class HostileRequestsTest(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.public_run = make_run(cls.model_a, cls.spin, FULL, submitter=cls.alice)
        cls.raw_token, _ = create_token(cls.alice, "ci")

    def setUp(self):
        self.client = Client(raise_request_exception=False)

    def api_post(self, body: str):
        return self.client.post(
            reverse("api_runs"),
            body.encode("utf-8", "surrogatepass"),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {self.raw_token}",
        )

    def board_urls(self):
        return [reverse(name) for name in BOARDS] + [
            reverse("leaderboard_export", args=[fmt]) for fmt in ("csv", "json")
        ]

    def test_non_finite_or_overflowing_weights_fall_back_to_the_official_board(self):
        for weights in ("inf,1,1,1", "1e308,1e308,1,1", "nan,1,1,1", "-inf,1,1,1"):
            for url in self.board_urls():
                with self.subTest(url=url, weights=weights):
                    response = self.client.get(url, {"w": weights})
                    self.assertEqual(response.status_code, 200)
            page = self.client.get(reverse("leaderboard"), {"w": weights})
            self.assertContains(page, "positive, finite sum")
            official = self.client.get(reverse("api_leaderboard")).json()["weights"]
            self.assertEqual(
                self.client.get(reverse("api_leaderboard"), {"w": weights}).json()["weights"],
                official,
            )

    def test_a_nul_in_a_compared_slug_is_an_error_on_the_page(self):
        response = self.client.get(reverse("compare"), {"a": "\x00", "b": "model-a"})
        self.assertContains(response, "NUL or a lone surrogate")

    def test_non_ascii_digits_are_not_run_ids(self):
        self.client.force_login(self.alice)
        for value in ("²", "٣", "99999999999999999999"):
            with self.subTest(value=value):
                compare = self.client.get(reverse("compare"), {"run_a": value})
                self.assertContains(compare, "Give two existing run numbers")
                submit = self.client.get(reverse("submit"), {"from": value})
                self.assertEqual(submit.status_code, 200)
                self.assertNotContains(submit, "VARIABLES")
        # An ASCII id still prefills the form.
        self.assertContains(
            self.client.get(reverse("submit"), {"from": self.public_run.pk}), "MODULE spin"
        )

    def test_a_deeply_nested_api_body_is_a_json_400(self):
        response = self.api_post("[" * 100_000)
        self.assertEqual(response.status_code, 400)
        self.assertEqual(response.json()["error"]["code"], "invalid_json")
        self.assertIn("nests too deeply", response.json()["error"]["message"])

    def test_a_lone_surrogate_in_the_spec_names_its_line(self):
        body = json.dumps({"task": "spin", "model": "model-a", "spec_text": "\ud800"})
        response = self.api_post(body)
        self.assertEqual(response.status_code, 400)
        (message,) = response.json()["error"]["fields"]["spec_text"]
        self.assertIn("lone UTF-16 surrogate (U+D800, line 1)", message)

    def test_a_surrogate_in_a_model_name_is_a_field_error(self):
        body = json.dumps({"task": "spin", "new_model_name": "a\udfff", "spec_text": GOOD,
                           "new_model_organisation": "Org"})  # fmt: skip
        fields = self.api_post(body).json()["error"]["fields"]
        self.assertIn("lone UTF-16 surrogate", fields["new_model_name"][0])

    def test_a_deeply_nested_adapter_is_refused_before_yaml_reads_it(self):
        body = json.dumps({"task": "spin", "model": "model-a", "spec_text": GOOD,
                           "adapter_text": "a: " + "[" * 1000})  # fmt: skip
        response = self.api_post(body)
        self.assertEqual(response.status_code, 400)
        (message,) = response.json()["error"]["fields"]["adapter_text"]
        self.assertIn("The adapter nests brackets more than 100 deep (line 1)", message)

    def test_a_nul_byte_in_a_spec_comment_is_refused_with_its_line(self):
        spec = GOOD.replace("====", "\\* a comment with \x00 in it\n====", 1)
        line = spec[: spec.index("\x00")].count("\n") + 1
        self.client.force_login(self.alice)
        upload = self.client.post(
            reverse("submit"),
            {"task": "spin", "model": "model-a",
             "spec_file": SimpleUploadedFile("spin.tla", spec.encode())},
        )  # fmt: skip
        errors = upload.context["form"].errors["spec_file"]
        self.assertEqual(errors, [f"The spec contains a NUL byte (line {line}); remove it."])
        api = self.api_post(json.dumps({"task": "spin", "model": "model-a", "spec_text": spec}))
        self.assertIn("NUL byte", api.json()["error"]["fields"]["spec_text"][0])

    def test_nothing_was_saved(self):
        self.test_a_nul_byte_in_a_spec_comment_is_refused_with_its_line()
        self.test_a_lone_surrogate_in_the_spec_names_its_line()
        self.assertEqual(list(Run.objects.values_list("pk", flat=True)), [self.public_run.pk])
