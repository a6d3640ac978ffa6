"""Every figure the paper publishes is the same on the page, in both exports, in the API and on
model, run and compare pages: all 121 per-task cells and all 11 × 5 summary figures.

Expected values are read from paper_summary_repaired.csv and detail_repaired.csv at test time.
"""

import csv
import html
import io
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import TestCase
from django.urls import reverse

from leaderboard.accounts.tokens import create_token
from leaderboard.board.aggregate import PHASES
from leaderboard.management.commands.load_published import load_published
from leaderboard.models import ModelUnderTest, Run, Task
from leaderboard.shared.rounding import MEAN, difference, figure, percent_text

DATA = Path(settings.SYSMOBENCH_DATA_DIR) / "leaderboard"
SUMMARY_COLUMNS = dict(
    zip(
        ["overall", *PHASES],
        [
            "overall_score",
            "phase1_compilation",
            "phase2_runtime",
            "phase3_conformance",
            "phase4_invariant",
        ],
        strict=True,
    )
)
DETAIL_PHASES = dict(zip(PHASES, ["p1", "p2", "p3", "p4"], strict=True))


def read_csv(name: str) -> list[dict]:
    path = DATA / name
    if not path.is_file():
        pytest.skip(f"benchmark data not found at {path}")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def display_names() -> dict[str, str]:
    from fixtures.build_published import MODELS

    return {config_id: entry[0] for config_id, entry in MODELS.items()}


def as_text(value: str) -> str:
    """A paper figure (0..1, 3 decimals) as the pages print it: ×100, one decimal."""
    return f"{float(value) * 100:.1f}"


class PublishedFiguresTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_published()
        names = display_names()
        cls.summary = {names[r["model"]]: r for r in read_csv("paper_summary_repaired.csv")}
        cls.tasks = list(Task.objects.values_list("slug", flat=True))

    def expected_cells(self):
        """(model name, task slug, paper figure) for all 121 cells."""
        for name, row in self.summary.items():
            for slug in self.tasks:
                yield name, slug, row[f"sys_{slug}"]

    def test_the_paper_has_121_cells_and_55_summary_figures(self):
        self.assertEqual(len(list(self.expected_cells())), 121)
        self.assertEqual(len(self.summary) * len(SUMMARY_COLUMNS), 55)

    def test_the_leaderboard_page_shows_every_paper_figure(self):
        page = self.client.get(reverse("leaderboard")).content.decode()
        rows = dict(re.findall(r'<tr data-model="([^"]+)"[^>]*>(.*?)</tr>', page, re.S))
        slugs = dict(ModelUnderTest.objects.values_list("name", "slug"))
        for name, row in self.summary.items():
            cells = re.findall(r'<td class="num (overall|phase|cell)[^"]*"[^>]*>(.*?)</td>',
                               rows[slugs[name]], re.S)  # fmt: skip
            # Without the n and the interval printed beside each figure.
            bare = [re.sub(r"<small.*?</small>", "", text, flags=re.S) for _, text in cells]
            shown = [re.sub(r"<[^>]+>", "", text).strip() for text in bare]
            expected = [as_text(row[column]) for column in SUMMARY_COLUMNS.values()]
            expected += [as_text(row[f"sys_{slug}"]) for slug in self.tasks]
            with self.subTest(model=name):
                self.assertEqual(shown, expected)

    def test_the_csv_export_equals_the_paper(self):
        response = self.client.get(reverse("leaderboard_export", args=["csv"]))
        rows = {r["model"]: r for r in csv.DictReader(io.StringIO(response.content.decode()))}
        self.assert_records_equal_paper(rows)

    def test_the_json_export_and_the_api_equal_the_paper(self):
        for url in (reverse("leaderboard_export", args=["json"]), reverse("api_leaderboard")):
            with self.subTest(url=url):
                models = self.client.get(url).json()["models"]
                self.assert_records_equal_paper({m["model"]: m for m in models})

    def assert_records_equal_paper(self, records: dict):
        self.assertEqual(set(records), set(self.summary))
        for name, row in self.summary.items():
            for key, column in SUMMARY_COLUMNS.items():
                self.assertEqual(float(records[name][key]), float(row[column]), (name, key))
            for slug in self.tasks:
                self.assertEqual(float(records[name][slug]), float(row[f"sys_{slug}"]), slug)

    def test_model_pages_show_the_paper_figures(self):
        for model in ModelUnderTest.objects.all():
            page = html.unescape(self.client.get(model.get_absolute_url()).content.decode())
            row = self.summary[model.name]
            with self.subTest(model=model.name):
                for slug in self.tasks:
                    cell = re.search(rf'data-task="{slug}".*?class="num task-score"><strong>'
                                     r"([\d.]+)", page, re.S)  # fmt: skip
                    self.assertEqual(cell.group(1), as_text(row[f"sys_{slug}"]), slug)

    def test_run_pages_and_run_exports_show_the_per_task_figures(self):
        detail = {(r["model"], r["system"]): r for r in read_csv("detail_repaired.csv")}
        names = {v: k for k, v in display_names().items()}
        token = create_token(get_user_model().objects.create_user("reader"), "t")[0]
        for run in Run.objects.select_related("model", "task"):
            source = detail[(names[run.model.name], run.task.slug)]
            expected = self.summary[run.model.name][f"sys_{run.task.slug}"]
            page = self.client.get(run.get_absolute_url()).content.decode()
            self.assertIn(f'id="overall-score">{as_text(expected)}<', page, run)
            exported = self.client.get(reverse("run_export_json", args=[run.pk])).json()
            self.assertEqual(exported["overall"], float(expected))
            phases = {p["phase"]: p["score"] for p in exported["phases"]}
            for phase, column in DETAIL_PHASES.items():
                if source[column]:
                    self.assertEqual(phases[phase], round(float(source[column]), 3), phase)
            api = self.client.get(
                reverse("api_run", args=[run.pk]), HTTP_AUTHORIZATION=f"Bearer {token}"
            ).json()
            self.assertEqual(api["overall"], float(expected))

    def test_compare_shows_paper_figures_and_deltas_from_unrounded_values(self):
        gemini, opus = ModelUnderTest.objects.filter(
            name__in=["Gemini 3.1 Pro", "Claude Opus 4.7"]
        ).order_by("pk")
        response = self.client.get(reverse("compare"), {"a": gemini.slug, "b": opus.slug})
        rows = {r["label"]: r for r in response.context["phase_rows"]}
        overall = rows["Overall"]
        self.assertEqual(overall["a_text"], as_text(self.summary[gemini.name]["overall_score"]))
        self.assertEqual(overall["b_text"], as_text(self.summary[opus.name]["overall_score"]))
        self.assertEqual(overall["delta"], difference(overall["a"], overall["b"]))
        for t in response.context["tasks"]:
            slug = t["task"]["slug"]
            a, b = t["a"]["overall"], t["b"]["overall"]
            self.assertEqual(t["delta"], round(b - a, 3))
            self.assertEqual(
                percent_text(a), as_text(self.summary[gemini.name][f"sys_{slug}"]), slug
            )

    def test_a_delta_is_not_the_difference_of_two_rounded_figures(self):
        # 0.7374999 (shown 73.7) vs 0.7829 (shown 78.3): 4.54 -> +4.5, not 78.3 - 73.7 = 4.6.
        self.assertEqual(difference(0.7374999999999999, 0.7829), 0.045)
        self.assertEqual(figure(0.865466, MEAN), 0.866)
        self.assertEqual(figure(0.7374999999999999), 0.737)
