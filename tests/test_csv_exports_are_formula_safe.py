"""CSV exports never hand a spreadsheet a formula: a text cell starting with = + - @ TAB or CR
(a model's name, a window's reason) gets a leading apostrophe; numbers, negative ones too, stay
numbers."""

import csv
import io

from django.urls import reverse

from leaderboard.shared.csv_safe import safe_cell
from tests.base import WorldTestCase, make_model, make_run, make_window_result

HOSTILE_NAME = '=HYPERLINK("http://evil.example","x")'


def rows_of(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_each_formula_start_is_escaped_and_numbers_are_not():
    for start in ("=", "+", "-", "@", "\t", "\r"):
        assert safe_cell(start + "1+1") == "'" + start + "1+1"
    assert safe_cell("Gemini") == "Gemini"
    assert safe_cell(-0.5) == -0.5 and safe_cell(None) is None


class CsvExportTest(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.evil = make_model("evil", name=HOSTILE_NAME, organisation="@SUM(A1:A9)")
        cls.evil_run = make_run(cls.evil, cls.spin, {"syntax": 1.0, "conformance": 0.5})
        conformance = cls.evil_run.phase_results.get(phase="conformance")
        make_window_result(conformance, reason="-2+3 states differ")

    def test_the_board_csv_escapes_names_and_organisations(self):
        rows = rows_of(self.client.get(reverse("leaderboard_export", args=["csv"])))
        evil = next(r for r in rows if r["slug"] == "evil")
        self.assertEqual(evil["model"], "'" + HOSTILE_NAME)
        self.assertEqual(evil["organisation"], "'@SUM(A1:A9)")
        self.assertEqual(float(evil["overall"]), float(evil["overall"]))  # still a number

    def test_the_run_csv_escapes_reasons(self):
        response = self.client.get(reverse("run_export_csv", args=[self.evil_run.pk]))
        reasons = [r["reason"] for r in rows_of(response) if r["reason"]]
        self.assertIn("'-2+3 states differ", reasons)
        self.assertFalse([r for r in reasons if r.startswith(("=", "+", "-", "@"))])
