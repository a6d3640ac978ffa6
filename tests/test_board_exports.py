"""CSV and JSON exports of the leaderboard follow the page's filters and weights."""

import csv
import io

from django.test import TestCase
from django.urls import reverse

from leaderboard.board.aggregate import PHASES
from leaderboard.management.commands.load_published import load_published
from leaderboard.models import Run


class LeaderboardExportTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_published()

    def export(self, fmt, **params):
        response = self.client.get(reverse("leaderboard_export", args=[fmt]), params)
        self.assertEqual(response.status_code, 200)
        return response

    def csv_rows(self, **params):
        response = self.export("csv", **params)
        self.assertTrue(response["Content-Type"].startswith("text/csv"))
        return list(csv.DictReader(io.StringIO(response.content.decode())))

    def test_the_csv_has_one_row_per_model_with_phases_and_tasks(self):
        rows = self.csv_rows()
        self.assertEqual(len(rows), 11)
        first = rows[0]
        self.assertEqual((first["rank"], first["model"]), ("1", "Gemini 3.1 Pro"))
        self.assertEqual(float(first["overall"]), 0.866)
        for column in [*PHASES, "spin", "etcd", "provenance", "organisation"]:
            self.assertIn(column, first)

    def test_the_csv_follows_filters_and_sort(self):
        rows = self.csv_rows(org="Anthropic", sort="name")
        self.assertEqual([r["model"] for r in rows], ["Claude Opus 4.7", "Claude Sonnet 4.6"])

    def test_the_json_names_the_weights_tasks_and_counted_runs(self):
        data = self.export("json").json()
        self.assertEqual(data["weights"], data["official_weights"])
        self.assertEqual(len(data["tasks"]), 11)
        gemini = data["models"][0]
        self.assertEqual(gemini["model"], "Gemini 3.1 Pro")
        run_id = gemini["runs"]["spin"]["run_id"]
        run = Run.objects.get(pk=run_id)
        self.assertEqual((run.model.name, run.task.slug), ("Gemini 3.1 Pro", "spin"))

    def test_the_json_follows_custom_weights(self):
        data = self.export("json", w="1,0,0,0").json()
        self.assertEqual(data["weights"]["syntax"], 1.0)
        self.assertEqual({m["overall"] for m in data["models"][:5]}, {1.0})
        self.assertTrue(any(m["rank"] != m["official_rank"] for m in data["models"]))

    def test_the_page_links_to_both_exports_with_its_query(self):
        response = self.client.get(reverse("leaderboard"), {"org": "Google"})
        self.assertContains(response, 'href="/leaderboard.csv?org=Google"')
        self.assertContains(response, 'href="/leaderboard.json?org=Google"')

    def test_other_export_formats_do_not_exist(self):
        self.assertEqual(self.client.get("/leaderboard.xml").status_code, 404)
