"""Run exports: JSON and CSV carry every phase, action, window and invariant row."""

import csv
import io

from django.urls import reverse

from leaderboard.scoring.export import CSV_COLUMNS
from tests.base import (
    WorldTestCase,
    make_action_result,
    make_invariant_result,
    make_phase_result,
    make_run,
    make_window_result,
)


class RunExportTest(WorldTestCase):
    def setUp(self):
        self.run = make_run(self.model_a, self.spin, adapter_text="actors: {}\n")
        make_phase_result(self.run, "syntax", 1.0)
        conformance = make_phase_result(self.run, "conformance", 0.5)
        make_action_result(conformance, "AcquireLock", 1, 2, detail={"pooled": 0.5})
        make_action_result(conformance, "ReleaseLock", 3, 3)
        make_window_result(conformance, "AcquireLock", window_id="w1", detail={"diff": {"pc": 1}})
        make_window_result(conformance, "AcquireLock", window_id="w2", verdict="pass")
        invariants = make_phase_result(self.run, "invariant", 0.0)
        make_invariant_result(invariants, "MutualExclusion", verdict="violated",
                              counterexample=[{"lockState": "locked"}])  # fmt: skip
        self.assertTrue(self.run.claim())
        self.assertTrue(self.run.finish(0.5, {"jar_sha256": "58c6df", "seeds": [1, 2, 3]}))

    def test_the_json_export_has_every_row_and_the_fingerprint(self):
        response = self.client.get(reverse("run_export_json", args=[self.run.pk]))
        self.assertIn("attachment", response["Content-Disposition"])
        body = response.json()
        self.assertEqual(body["fingerprint"]["seeds"], [1, 2, 3])
        self.assertEqual(body["adapter_text"], "actors: {}\n")
        phases = {p["phase"]: p for p in body["phases"]}
        self.assertEqual(set(phases), {"syntax", "conformance", "invariant"})
        self.assertEqual([a["action"] for a in phases["conformance"]["actions"]],
                         ["AcquireLock", "ReleaseLock"])  # fmt: skip
        self.assertEqual([w["verdict"] for w in phases["conformance"]["windows"]], ["fail", "pass"])
        self.assertEqual(phases["conformance"]["windows"][0]["detail"], {"diff": {"pc": 1}})
        self.assertEqual(phases["invariant"]["invariants"][0]["counterexample"],
                         [{"lockState": "locked"}])  # fmt: skip

    def test_the_csv_export_has_one_row_per_result(self):
        response = self.client.get(reverse("run_export_csv", args=[self.run.pk]))
        self.assertEqual(response["Content-Type"], "text/csv; charset=utf-8")
        rows = list(csv.DictReader(io.StringIO(response.content.decode())))
        self.assertEqual(list(rows[0]), CSV_COLUMNS)
        kinds = [(r["row"], r["phase"], r["name"], r["status"]) for r in rows]
        self.assertEqual(kinds, [
            ("phase", "syntax", "syntax", "ran"),
            ("phase", "conformance", "conformance", "ran"),
            ("action", "conformance", "AcquireLock", ""),
            ("action", "conformance", "ReleaseLock", ""),
            ("window", "conformance", "AcquireLock", "fail"),
            ("window", "conformance", "AcquireLock", "pass"),
            ("phase", "invariant", "invariant", "ran"),
            ("invariant", "invariant", "MutualExclusion", "violated"),
        ])  # fmt: skip
        acquire = rows[2]
        self.assertEqual((acquire["passed"], acquire["total"], acquire["score"]), ("1", "2", "0.5"))
        self.assertEqual(rows[4]["window_id"], "w1")
        self.assertEqual(rows[4]["detail"], '{"diff":{"pc":1}}')

    def test_the_run_page_links_both_exports(self):
        page = self.client.get(reverse("run_detail", args=[self.run.pk]))
        self.assertContains(page, reverse("run_export_json", args=[self.run.pk]))
        self.assertContains(page, reverse("run_export_csv", args=[self.run.pk]))

    def test_an_unknown_run_has_no_export(self):
        self.assertEqual(self.client.get(reverse("run_export_csv", args=[999999])).status_code, 404)
