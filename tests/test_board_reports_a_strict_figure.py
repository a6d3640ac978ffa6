"""The board's strict secondary figure (docs/decisions/0030-first-hour-and-peers.md): the share of
all tasks a model fully passes (P3 and P4 at 1: every trace window and every invariant; P3 n/a does
not stand in the way), on the page, in leaderboard.json and leaderboard.csv; it never changes the
rank."""

import csv
import io

from django.urls import reverse

from leaderboard.models import PhaseResult
from tests.base import WorldTestCase, make_model, make_phase_result, make_run

FULL = {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0, "invariant": 1.0}


class StrictFigureTest(WorldTestCase):
    def setUp(self):
        # A: spin fully passed; etcd one invariant short.
        make_run(self.model_a, self.spin, FULL)
        make_run(self.model_a, self.etcd, {**FULL, "invariant": 0.9})
        # B: etcd has no trace data here (P3 n/a) and every invariant holds: a full pass; spin
        # has two runs, one of them short of a window, so the cell is not.
        etcd = make_run(self.model_b, self.etcd, {"syntax": 1.0, "runtime": 1.0, "invariant": 1.0})
        make_phase_result(etcd, "conformance", None, status=PhaseResult.Status.NOT_APPLICABLE)
        make_run(self.model_b, self.spin, FULL)
        make_run(self.model_b, self.spin, {**FULL, "conformance": 0.5})

    def test_the_json_gives_the_share_and_the_count(self):
        body = self.client.get(reverse("leaderboard_export", args=["json"])).json()
        got = {m["slug"]: (m["strict"], m["strict_passed"]) for m in body["models"]}
        self.assertEqual(got, {"model-a": (0.5, 1), "model-b": (0.5, 1)})
        self.assertIn("every invariant", body["strict_note"])

    def test_the_csv_has_the_same_columns(self):
        text = self.client.get(reverse("leaderboard_export", args=["csv"]) + "?page=1")
        rows = list(csv.DictReader(io.StringIO(text.content.decode())))
        self.assertEqual(
            {r["slug"]: r["strict_passed"] for r in rows}, {"model-a": "1", "model-b": "1"}
        )

    def test_the_page_shows_it_as_tasks_passed_of_all(self):
        html = self.client.get(reverse("leaderboard")).content.decode()
        row = html.split('data-model="model-a"')[1].split("</tr>")[0]
        self.assertIn(">1/2</td>", row)
        self.assertIn('data-key="strict"', html)
        self.assertIn('id="strict-key"', html)

    def test_the_model_page_gives_it_too(self):
        page = self.client.get(reverse("model_detail", args=["model-b"])).content.decode()
        self.assertIn('<dd id="model-strict">1/2</dd>', page)

    def test_sorting_by_it_keeps_the_ranks(self):
        make_run(make_model("model-c"), self.spin, {**FULL, "conformance": 0.8})
        page = self.client.get(reverse("leaderboard"), {"sort": "strict"})
        rows = page.context["rows"]
        self.assertEqual([r["strict_passed"] for r in rows], [0, 1, 1])
        official = self.client.get(reverse("leaderboard")).context["rows"]
        self.assertEqual({r["slug"]: r["rank"] for r in rows},
                         {r["slug"]: r["rank"] for r in official})  # fmt: skip
