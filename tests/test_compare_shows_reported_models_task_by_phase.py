"""Compare two reported (published) models task by task and phase by phase, with generation
tokens, on the page and in /compare.csv and /compare.json: every figure equals the source CSV.

Expected values are read from detail_repaired.csv (scores) and detail.csv (generation tokens)
at test time, never typed in here.
"""

import csv
import io
from pathlib import Path

import pytest
from django.conf import settings
from django.test import TestCase
from django.urls import reverse

from leaderboard.board.aggregate import PHASES
from leaderboard.management.commands.load_published import load_published
from leaderboard.models import ModelUnderTest
from tests.base import make_model

DATA = Path(settings.SYSMOBENCH_DATA_DIR) / "leaderboard"
COLUMNS = dict(zip([*PHASES, "overall"], ["p1", "p2", "p3", "p4", "overall"], strict=True))
A, B = "gemini31_google", "gpt54_azure"


def read_csv(name: str) -> list[dict]:
    path = DATA / name
    if not path.is_file():
        pytest.skip(f"benchmark data not found at {path}")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def published(value: str) -> float | None:
    """A detail_repaired.csv value as the board publishes it (3 decimals; empty counts 0)."""
    return round(float(value), 3) if value else 0.0


class ReportedModelsCompareTest(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_published()
        cls.detail = {(r["model"], r["system"]): r for r in read_csv("detail_repaired.csv")}
        cls.tokens = {
            (r["model"], r["system"]): int(r["gen_tokens_in"]) + int(r["gen_tokens_out"])
            for r in read_csv("detail.csv")
            if r["gen_tokens_in"]
        }
        cls.slug_a, cls.slug_b = "gemini-3-1-pro", "gpt-5-4"
        cls.tasks = [t for (m, t) in cls.detail if m == A]

    def query(self):
        return {"a": self.slug_a, "b": self.slug_b}

    def test_the_json_export_has_every_cell_of_the_source(self):
        body = self.client.get(reverse("compare_export", args=["json"]), self.query()).json()
        tasks = {t["task"]: t for t in body["tasks"]}
        self.assertEqual(set(tasks), set(self.tasks))
        self.assertEqual(len(self.tasks), 11)
        for slug in self.tasks:
            for key, column in COLUMNS.items():
                with self.subTest(task=slug, phase=key):
                    cell = tasks[slug]["phases"][key]
                    self.assertEqual(cell["a"], published(self.detail[(A, slug)][column]))
                    self.assertEqual(cell["b"], published(self.detail[(B, slug)][column]))
            tokens = tasks[slug]["generation_tokens"]
            self.assertEqual((tokens["a"], tokens["b"]),
                             (self.tokens[(A, slug)], self.tokens[(B, slug)]))  # fmt: skip
        self.assertEqual(body["a"]["name"], "Gemini 3.1 Pro")
        self.assertEqual(tasks["spin"]["runs"]["a"]["provenance"], "reported")

    def test_the_csv_export_has_the_same_figures(self):
        response = self.client.get(reverse("compare_export", args=["csv"]), self.query())
        self.assertEqual(response["Content-Type"], "text/csv; charset=utf-8")
        self.assertIn("compare-gemini-3-1-pro-gpt-5-4.csv", response["Content-Disposition"])
        rows = list(csv.DictReader(io.StringIO(response.content.decode())))
        cells = {(r["task"], r["name"]): r for r in rows if r["row"] == "task"}
        for slug in self.tasks:
            for key, column in COLUMNS.items():
                row = cells[(slug, key)]
                self.assertEqual(float(row["a"]), published(self.detail[(A, slug)][column]))
                self.assertEqual(float(row["b"]), published(self.detail[(B, slug)][column]))
            row = cells[(slug, "generation_tokens")]
            self.assertEqual(int(row["a"]), self.tokens[(A, slug)])

    def test_the_page_shows_the_task_by_phase_table(self):
        page = self.client.get(reverse("compare"), self.query()).content.decode()
        table = page.split('id="compare-task-phases"')[1].split("</table>")[0]
        for slug in self.tasks:
            row = table.split(f'data-task="{slug}"')[1].split("</tr>")[0]
            for key, column in COLUMNS.items():
                for side, model in (("a", A), ("b", B)):
                    expected = f"{published(self.detail[(model, slug)][column]) * 100:.1f}"
                    cell = row.split(f'data-phase="{key}" data-side="{side}">')[1]
                    self.assertEqual(cell.split("<")[0], expected, (slug, key, side))

    def test_tokens_are_on_the_model_page_per_task(self):
        model = ModelUnderTest.objects.get(slug=self.slug_a)
        page = self.client.get(model.get_absolute_url()).content.decode()
        table = page.split('id="model-disclosure"')[1].split("</table>")[0]
        spin = table.split('data-task="spin"')[1].split("</tr>")[0]
        self.assertIn(f'title="{self.tokens[(A, "spin")]} tokens"', spin)
        self.assertIn("not published", spin)

    def test_a_long_archive_name_is_shortened_with_the_full_name_kept(self):
        long_name = "Claude, model version unrecorded, SysMoBench 2025 archive"
        make_model("claude-2025-archive", name=long_name, short_name="Claude (2025 archive)")
        page = self.client.get(reverse("compare"), {"a": "claude-2025-archive", "b": "gpt-5-4"})
        heading = page.content.decode().split("<h1>")[1].split("</h1>")[0]
        self.assertIn(f'title="{long_name}">Claude (2025 archive)</span>', heading)
        self.assertEqual(page.context["a"].name, "Claude (2025 archive)")

    def test_without_two_models_the_export_says_what_to_give(self):
        response = self.client.get(reverse("compare_export", args=["json"]), {"a": "nosuch"})
        self.assertEqual(response.status_code, 400)
        self.assertIn("Unknown model", response.json()["error"]["message"])
        response = self.client.get(reverse("compare_export", args=["csv"]))
        self.assertContains(response, "Name two models", status_code=400)
