"""The two 500s fuzzing found, and their class: a JSON integer past Python's 4,300-digit limit in
`POST /api/v1/runs` is a clear 400, a non-ASCII digit in `?vs=` is ignored; and no str.isdigit()
in the code goes without isascii() (`'²'.isdigit()` is true and `int('²')` raises)."""

import re
from pathlib import Path

from django.urls import reverse

from leaderboard.accounts.tokens import create_token
from tests.base import WorldTestCase, make_run, make_window_result

ROOT = Path(__file__).resolve().parent.parent


class FuzzedInputsTest(WorldTestCase):
    def test_a_json_integer_of_5000_digits_is_a_400(self):
        token, _ = create_token(self.alice, "ci")
        body = '{"task": "spin", "spec_text": "x", "n": ' + "9" * 5000 + "}"
        response = self.client.post(reverse("api_runs"), body, content_type="application/json",
                                    HTTP_AUTHORIZATION=f"Bearer {token}")  # fmt: skip
        self.assertEqual(response.status_code, 400)
        error = response.json()["error"]
        self.assertEqual(error["code"], "invalid_json")
        self.assertIn("4,300 digits", error["message"])

    def test_a_superscript_digit_in_vs_is_ignored(self):
        run = make_run(self.model_a, self.spin, {"conformance": 0.5})
        window = make_window_result(run.phase_results.get(), trace_id="t", window_id="w1")
        other_run = make_run(self.model_b, self.spin, {"conformance": 0.5})
        other = make_window_result(other_run.phase_results.get(), trace_id="t", window_id="w1")
        url = reverse("window_detail", args=[run.pk, window.pk])
        for vs in ("%C2%B2", "%D9%A3", "9" * 40, "-1"):
            response = self.client.get(f"{url}?vs={vs}")
            self.assertEqual(response.status_code, 200, vs)
            self.assertIsNone(response.context.get("other"), vs)
        shown = self.client.get(f"{url}?vs={other.pk}")
        self.assertEqual(shown.context["other"], other)


def test_no_isdigit_without_isascii():
    unchecked = []
    for folder in ("leaderboard", "evaluation", "config"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if re.search(r"\.isdigit\(\)", line) and "isascii()" not in line:
                    if not line.lstrip().startswith(("#", '"', "`")):
                        unchecked.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert unchecked == []
