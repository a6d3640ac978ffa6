"""Compare's paired test: exact McNemar per action over the windows both runs checked, with a
plain caution (no p-value read as evidence) when too few windows differ; on the page and in
the CSV and JSON exports.

The expected p-values are worked out by hand below: p = min(1, 2·P(X ≤ min(b, c))) with
X ~ Bin(b + c, 1/2).
"""

import csv
import io

import pytest
from django.urls import reverse

from leaderboard.runs.paired import mcnemar_exact, verdict
from tests.base import WorldTestCase, make_action_result, make_run, make_window_result

PHASES = {"syntax": 1.0, "runtime": 1.0, "conformance": 0.5, "invariant": 1.0}


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (0, 6, 2 * 1 / 64),  # 0.03125: the smallest n with a significant split
        (6, 0, 2 * 1 / 64),
        (1, 1, 1.0),  # 2 · (1 + 2)/4 = 1.5, capped at 1
        (0, 0, 1.0),
        (0, 5, 2 * 1 / 32),  # 0.0625: five against none is still not significant
        (2, 8, 2 * (1 + 10 + 45) / 1024),  # 0.109375
        (1, 9, 2 * (1 + 10) / 1024),  # 0.021484375
        (3, 3, 1.0),  # 2 · 42/64 > 1
    ],
)
def test_the_p_value_is_the_exact_two_sided_binomial(b, c, p):
    assert mcnemar_exact(b, c) == pytest.approx(p, abs=1e-15)


def test_negative_counts_are_refused():
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def test_under_six_discordant_pairs_it_says_too_few_to_tell():
    few = verdict(0, 5)
    assert few["caution"].startswith("too few discordant windows to tell (5;")
    assert few["reading"] == ""
    enough = verdict(0, 6)
    assert (enough["caution"], enough["reading"]) == ("", "B is better (p < 0.05)")
    assert verdict(4, 4)["reading"] == "no clear winner at the 5% level"


class WindowTestOnThePageTest(WorldTestCase):
    def setUp(self):
        self.run_a = make_run(self.model_a, self.spin, phases=PHASES)
        self.run_b = make_run(self.model_b, self.spin, phases=PHASES)
        conf_a = self.run_a.phase_results.get(phase="conformance")
        conf_b = self.run_b.phase_results.get(phase="conformance")
        for conf in (conf_a, conf_b):
            make_action_result(conf, "Acquire", 3, 6)
            make_action_result(conf, "Release", 1, 3)
        # Acquire: six windows only B accepts (b = 0, c = 6).
        for i in range(6):
            make_window_result(conf_a, "Acquire", "fail", window_id=f"acq{i}")
            make_window_result(conf_b, "Acquire", "pass", window_id=f"acq{i}")
        # Release: one window each way, and one both reject (undecided counts as not passed).
        for window, (va, vb) in {"r1": ("pass", "fail"), "r2": ("fail", "pass"),
                                 "r3": ("undecided", "fail")}.items():  # fmt: skip
            make_window_result(conf_a, "Release", va, window_id=window)
            make_window_result(conf_b, "Release", vb, window_id=window)
        # A window only A checked is no pair.
        make_window_result(conf_a, "Release", "pass", window_id="only-a")

    def query(self):
        return {"a": "model-a", "b": "model-b"}

    def test_each_action_gets_its_own_test(self):
        rows = self.client.get(reverse("compare"), self.query()).context["windows_test"]["rows"]
        got = {r["action"]: (r["windows"], r["b"], r["c"], r["p_value"]) for r in rows}
        self.assertEqual(got["Acquire"], (6, 0, 6, 0.03125))
        self.assertEqual(got["Release"], (3, 1, 1, 1.0))

    def test_the_page_prints_p_only_where_it_can_mean_something(self):
        page = self.client.get(reverse("compare"), self.query()).content.decode()
        table = page.split('id="compare-window-test"')[1].split("</table>")[0]
        acquire = table.split('data-action="Acquire"')[1].split("</tr>")[0]
        release = table.split('data-action="Release"')[1].split("</tr>")[0]
        self.assertIn(">0.0313<", acquire)  # 0.03125 to 4 decimals
        self.assertIn("B is better", acquire)
        self.assertIn("too few discordant windows to tell", release)
        self.assertNotIn(">1.0000<", release)
        pooled = table.split('id="window-test-pooled"')[1].split("</tr>")[0]
        # 9 paired windows, 1 only A accepts, 7 only B: 2 · (1 + 8)/256.
        self.assertIn(">9<", pooled)
        self.assertIn(">0.0703<", pooled)  # 0.0703125

    def test_the_json_export_carries_the_tests_with_no_p_under_the_caution(self):
        body = self.client.get(reverse("compare_export", args=["json"]), self.query()).json()
        tests = {t["action"]: t for t in body["window_tests"]}
        self.assertEqual(
            {k: tests["Acquire"][k] for k in ("task", "windows", "a_only", "b_only", "p_value")},
            {"task": "spin", "windows": 6, "a_only": 0, "b_only": 6, "p_value": 0.03125},
        )
        self.assertIsNone(tests["Release"]["p_value"])
        self.assertIn("too few", tests["Release"]["caution"])
        self.assertEqual(body["window_test_pooled"]["b_only"], 7)

    def test_the_csv_export_has_one_test_row_per_action(self):
        response = self.client.get(reverse("compare_export", args=["csv"]), self.query())
        rows = [r for r in csv.DictReader(io.StringIO(response.content.decode()))
                if r["row"] == "test"]  # fmt: skip
        self.assertEqual([r["name"] for r in rows], ["Acquire", "Release", "all actions"])
        self.assertEqual((rows[0]["b_only"], rows[0]["p_value"]), ("6", "0.03125"))
        self.assertEqual(rows[1]["p_value"], "")
        self.assertIn("too few", rows[1]["note"])

    def test_two_runs_compare_the_same_way(self):
        query = {"run_a": self.run_a.pk, "run_b": self.run_b.pk}
        body = self.client.get(reverse("compare_export", args=["json"]), query).json()
        self.assertEqual(body["mode"], "runs")
        self.assertEqual([t["action"] for t in body["window_tests"]], ["Acquire", "Release"])
        self.assertEqual(body["tasks"][0]["phases"]["conformance"]["a"], 0.5)
