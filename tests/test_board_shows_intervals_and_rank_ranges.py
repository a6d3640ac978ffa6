"""Issue 22: every verified cell and every overall has a 95% interval, and ranks are ranges.

The world: 3 models × 2 tasks × 5 runs. Expected values are worked out here, independently of
the board's code: equal runs give the point interval; the one spread cell is bootstrapped by a
pure-Python loop over the same draws (the documented generator and seed), with the percentile
written out by hand.
"""

import numpy as np
from django.urls import reverse

from leaderboard.board.boards import compute_board
from leaderboard.board.uncertainty import RESAMPLES, SEED, rank_ranges, ties
from leaderboard.models import Run
from tests.base import (
    WorldTestCase,
    make_action_result,
    make_invariant_result,
    make_model,
    make_phase_result,
    make_run,
)


def runs_scoring(model, task, value, times=1):
    """`times` runs whose every phase scores `value` (so the cell score is `value`)."""
    phases = dict.fromkeys(("syntax", "runtime", "conformance", "invariant"), value)
    return [make_run(model, task, phases) for _ in range(times)]


def hand_percentile(values, q):
    """numpy's default ("linear") percentile, written out."""
    ordered = sorted(values)
    position = q / 100 * (len(ordered) - 1)
    below = int(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def hand_bootstrap_mean(values, model_id, task_id):
    rng = np.random.default_rng([SEED, model_id, task_id])
    draws = rng.integers(0, len(values), size=(RESAMPLES, len(values)))
    means = [sum(values[i] for i in row) / len(values) for row in draws.tolist()]
    return hand_percentile(means, 2.5), hand_percentile(means, 97.5)


class ThreeModelsTwoTasksFiveRuns(WorldTestCase):
    SPREAD = [0.2, 0.4, 0.6, 0.8, 1.0]

    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.model_c = make_model("model-c", organisation="Org C")
        runs_scoring(cls.model_a, cls.spin, 0.8, times=5)
        runs_scoring(cls.model_a, cls.etcd, 0.6, times=5)
        for value in cls.SPREAD:
            runs_scoring(cls.model_b, cls.spin, value)
        runs_scoring(cls.model_b, cls.etcd, 0.7, times=5)
        runs_scoring(cls.model_c, cls.spin, 0.1, times=5)
        runs_scoring(cls.model_c, cls.etcd, 0.1, times=5)

    def setUp(self):
        self.board = compute_board()
        self.rows = self.board.rows.set_index("model_id")

    def test_equal_runs_give_a_point_interval_over_runs(self):
        for model, task, value in ((self.model_a, self.spin, 0.8), (self.model_c, self.etcd, 0.1)):
            cell = self.board.cell(model.pk, task.pk)
            self.assertEqual(cell["n"], 5)
            self.assertEqual(cell["ci_basis"], "runs")
            self.assertAlmostEqual(cell["ci_low"], value)
            self.assertAlmostEqual(cell["ci_high"], value)
        row = self.rows.loc[self.model_a.pk]
        self.assertAlmostEqual(row["overall_ci_low"], 0.7)
        self.assertAlmostEqual(row["overall_ci_high"], 0.7)

    def test_a_spread_cell_equals_the_hand_bootstrap(self):
        low, high = hand_bootstrap_mean(self.SPREAD, self.model_b.pk, self.spin.pk)
        cell = self.board.cell(self.model_b.pk, self.spin.pk)
        self.assertAlmostEqual(cell["overall"], 0.6)
        self.assertAlmostEqual(cell["ci_low"], low)
        self.assertAlmostEqual(cell["ci_high"], high)
        self.assertLess(low, 0.6)
        self.assertGreater(high, 0.6)

    def test_the_overall_interval_bootstraps_the_mean_over_tasks(self):
        # etcd is five runs of 0.7, so every resampled overall is (spin resample + 0.7) / 2,
        # and a percentile commutes with that increasing map.
        low, high = hand_bootstrap_mean(self.SPREAD, self.model_b.pk, self.spin.pk)
        row = self.rows.loc[self.model_b.pk]
        self.assertAlmostEqual(row["overall"], 0.65)
        self.assertAlmostEqual(row["overall_ci_low"], (low + 0.7) / 2)
        self.assertAlmostEqual(row["overall_ci_high"], (high + 0.7) / 2)

    def test_rank_ranges_follow_the_intervals(self):
        low, high = hand_bootstrap_mean(self.SPREAD, self.model_b.pk, self.spin.pk)
        # B's overall interval holds A's point 0.7 and stays above C's 0.1:
        self.assertLess((low + 0.7) / 2, 0.7)
        self.assertGreater((high + 0.7) / 2, 0.7)
        self.assertGreater((low + 0.7) / 2, 0.1)
        # so nobody is surely ahead of A or B (best 1), each has the other not surely behind
        # (worst 2); both are surely ahead of C, which ranks [3, 3].
        expected = {self.model_a.pk: (1, 2), self.model_b.pk: (1, 2), self.model_c.pk: (3, 3)}
        for model_id, (best, worst) in expected.items():
            row = self.rows.loc[model_id]
            self.assertEqual((row["rank_best"], row["rank_worst"]), (best, worst))
        ties = dict(zip(self.board.rows.model_id, self.board.rows.tie, strict=True))
        self.assertEqual(
            ties, {self.model_a.pk: True, self.model_b.pk: True, self.model_c.pk: False}
        )

    def test_the_exports_give_n_ci_and_rank_range(self):
        data = self.client.get(reverse("api_leaderboard")).json()
        by_slug = {m["slug"]: m for m in data["models"]}
        self.assertEqual(by_slug["model-a"]["rank_range"], [1, 2])
        self.assertEqual(by_slug["model-c"]["rank_range"], [3, 3])
        self.assertEqual(by_slug["model-a"]["overall_ci"], [0.7, 0.7])
        spin = by_slug["model-b"]["runs"]["spin"]
        low, high = hand_bootstrap_mean(self.SPREAD, self.model_b.pk, self.spin.pk)
        self.assertEqual(spin["n"], 5)
        self.assertEqual(spin["ci"], [round(low, 3), round(high, 3)])
        self.assertEqual(spin["ci_basis"], "runs")
        csv_text = self.client.get(reverse("leaderboard_export", args=["csv"])).content.decode()
        self.assertIn('"[1, 2]"', csv_text)

    def test_the_page_marks_the_tied_rows(self):
        page = self.client.get(reverse("leaderboard")).content.decode()
        rows = page.split('<tr data-model="')[1:]
        tied = {row.split('"', 1)[0] for row in rows if 'class="tied"' in row.split(">", 1)[0]}
        self.assertEqual(tied, {"model-a", "model-b"})
        self.assertIn("1–2", page)


class OneRunCells(WorldTestCase):
    """With one run the interval resamples its windows (per action) and its invariants."""

    def one_run(self, model, windows_passed, windows, invariants):
        run = make_run(model, self.spin, {"syntax": 1.0, "runtime": 1.0})
        conformance = make_phase_result(run, "conformance", 1.0 if windows_passed == windows else 0)
        make_action_result(conformance, "Acquire", windows_passed, windows)
        holding = sum(invariants)
        invariant = make_phase_result(run, "invariant", holding / len(invariants))
        for i, holds in enumerate(invariants):
            make_invariant_result(invariant, f"Inv{i}", "holds" if holds else "violated")
        run.overall = run.weighted_score()
        run.save(update_fields=["overall"])
        return run

    def test_all_units_passing_give_a_point_interval_over_units(self):
        self.one_run(self.model_a, 4, 4, [True, True])
        cell = compute_board().cell(self.model_a.pk, self.spin.pk)
        self.assertEqual((cell["n"], cell["ci_basis"]), (1, "units"))
        self.assertAlmostEqual(cell["ci_low"], 1.0)
        self.assertAlmostEqual(cell["ci_high"], 1.0)

    def test_one_failing_window_of_two_spans_the_action_weight(self):
        # The action scores 0 (a window fails); a draw of the passing window twice (1 in 4)
        # scores it 1, so the draws are 0 or 1 with hundreds of 1s: the 2.5th percentile is
        # the cell as scored and the 97.5th that cell plus P3's weight, 0.35.
        self.one_run(self.model_a, 1, 2, [True])
        cell = compute_board().cell(self.model_a.pk, self.spin.pk)
        self.assertAlmostEqual(cell["overall"], 0.65)
        self.assertAlmostEqual(cell["ci_low"], 0.65)
        self.assertAlmostEqual(cell["ci_high"], 1.0)
        self.assertEqual(cell["ci_basis"], "units")

    def test_a_run_with_nothing_to_resample_has_no_interval(self):
        make_run(self.model_a, self.spin, {"syntax": 0.0})
        cell = compute_board().cell(self.model_a.pk, self.spin.pk)
        self.assertIsNone(cell["ci_low"])
        self.assertIsNone(cell["ci_basis"])

    def test_a_reported_cell_has_n_and_interval_null(self):
        make_run(
            self.model_b,
            self.spin,
            {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0, "invariant": 0.5},
            provenance=Run.Provenance.REPORTED,
            source="paper",
        )
        data = self.client.get(reverse("leaderboard_export", args=["json"])).json()
        model = next(m for m in data["models"] if m["slug"] == "model-b")
        self.assertEqual(model["runs"]["spin"]["n"], None)
        self.assertEqual(model["runs"]["spin"]["ci"], None)
        # Its overall rests on which tasks were chosen: over the two tasks, cells 0.825 (spin)
        # and 0 (no etcd run), a draw takes {0.825, 0.825}, {0.825, 0} or {0, 0}, each of the
        # extremes a quarter of 2000 draws: the 2.5th and 97.5th percentiles are 0 and 0.825.
        overall = 0.15 + 0.15 + 0.35 + 0.35 * 0.5
        self.assertEqual(model["overall_ci_basis"], "tasks")
        self.assertAlmostEqual(model["overall_ci"][0], 0.0)
        self.assertAlmostEqual(model["overall_ci"][1], round(overall, 3), places=3)
        self.assertContains(
            self.client.get(reverse("leaderboard")),
            '<span class="visually-hidden">n not published</span>',
        )


class RankRangeDefinition(WorldTestCase):
    def test_hand_intervals(self):
        # best = 1 + #(low_j > high_i); worst = #(high_j >= low_i), i itself included.
        intervals = [(0.60, 0.70), (0.50, 0.60), (0.10, 0.20), (0.65, 0.65)]
        points = [0.65, 0.55, 0.15, 0.65]
        # 0: nobody's low above 0.70 -> best 1; highs >= 0.60: 0, 1 (touching), 3 -> worst 3.
        # 1: lows above 0.60: 0.65 (model 3) -> best 2; highs >= 0.50: 0, 1, 3 -> worst 3.
        # 2: lows above 0.20: 0, 1, 3 -> best 4; highs >= 0.10: all -> worst 4.
        # 3: lows above 0.65: none -> best 1; highs >= 0.65: 0, 3 -> worst 2.
        self.assertEqual(rank_ranges(points, intervals), [(1, 3), (2, 3), (4, 4), (1, 2)])
        self.assertEqual(ties([(1, 3), (2, 3), (4, 4), (1, 2)]), [True, True, False, True])

    def test_a_model_without_interval_counts_as_its_point(self):
        self.assertEqual(rank_ranges([0.5, 0.4], [None, None]), [(1, 1), (2, 2)])
        self.assertEqual(rank_ranges([0.5, 0.5], [None, None]), [(1, 2), (1, 2)])
