"""The weighted aggregate on a small hand-made world: cells, run choice, means, N/A, weights."""

import pytest

from leaderboard.board.aggregate import OFFICIAL_WEIGHTS, normalise_weights, parse_weights
from leaderboard.board.boards import compute_board, get_board
from leaderboard.models import PhaseResult, Run
from leaderboard.models.marks import invalidate_board_cache
from leaderboard.shared.rounding import CELL, MEAN, figure, percent_text
from tests.base import WorldTestCase, make_model, make_phase_result, make_run

FULL = {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0, "invariant": 1.0}


def reported(model, task, phases):
    return make_run(model, task, phases, provenance=Run.Provenance.REPORTED, source="paper")


def row_of(board, model):
    return board.rows.set_index("model_id").loc[model.pk]


class CellScoreTests(WorldTestCase):
    def test_a_cell_weights_the_four_phases(self):
        phases = {"syntax": 1.0, "runtime": 0.5, "conformance": 0.5, "invariant": 0.25}
        make_run(self.model_a, self.spin, phases)
        cell = compute_board().cell(self.model_a.pk, self.spin.pk)
        self.assertAlmostEqual(cell["overall"], 0.15 + 0.075 + 0.175 + 0.0875)

    def test_a_missing_phase_counts_zero(self):
        make_run(self.model_a, self.spin, {"syntax": 1.0, "runtime": 1.0})
        cell = compute_board().cell(self.model_a.pk, self.spin.pk)
        self.assertAlmostEqual(cell["overall"], 0.30)

    def test_a_skipped_phase_without_score_counts_zero(self):
        run = make_run(self.model_a, self.spin, {"syntax": 1.0, "conformance": 1.0})
        make_phase_result(run, "runtime", None, status=PhaseResult.Status.SKIPPED)
        cell = compute_board().cell(self.model_a.pk, self.spin.pk)
        self.assertAlmostEqual(cell["overall"], 0.15 + 0.35)


class RunChoiceTests(WorldTestCase):
    def test_a_verified_run_beats_a_better_reported_one(self):
        reported(self.model_a, self.spin, FULL)
        verified = make_run(self.model_a, self.spin, {"syntax": 1.0})
        cell = compute_board().cell(self.model_a.pk, self.spin.pk)
        self.assertEqual((cell["run_id"], cell["provenance"]), (verified.pk, "verified"))

    def test_under_the_best_policy_the_best_verified_run_counts(self):
        make_run(self.model_a, self.spin, {"syntax": 1.0})
        best = make_run(self.model_a, self.spin, {"syntax": 1.0, "invariant": 1.0})
        make_run(self.model_a, self.spin, {"syntax": 0.5})
        cell = compute_board(policy="best").cell(self.model_a.pk, self.spin.pk)
        self.assertEqual(cell["run_id"], best.pk)

    def test_unfinished_and_failed_runs_do_not_count(self):
        reported(self.model_a, self.spin, {"syntax": 1.0})
        make_run(self.model_a, self.spin, FULL, status=Run.Status.RUNNING)
        make_run(self.model_a, self.spin, FULL, status=Run.Status.FAILED)
        cell = compute_board().cell(self.model_a.pk, self.spin.pk)
        self.assertEqual(cell["provenance"], "reported")

    def test_a_model_with_only_unfinished_runs_is_not_on_the_board(self):
        make_run(self.model_b, self.spin)
        self.assertNotIn(self.model_b.pk, set(compute_board().rows.model_id))


class ModelMeanTests(WorldTestCase):
    def test_a_task_with_no_run_counts_zero_in_every_mean(self):
        make_run(self.model_a, self.spin, FULL)
        row = row_of(compute_board(), self.model_a)
        self.assertAlmostEqual(row["overall"], 0.5)
        self.assertAlmostEqual(row["conformance"], 0.5)
        self.assertEqual(row["submitted"], 1)

    def test_models_are_ranked_by_overall(self):
        make_run(self.model_a, self.spin, {"syntax": 1.0})
        make_run(self.model_b, self.spin, FULL)
        board = compute_board()
        self.assertEqual(list(board.rows.model_id), [self.model_b.pk, self.model_a.pk])
        self.assertEqual(list(board.rows["rank"]), [1, 2])

    def test_equal_scores_share_a_rank(self):
        make_run(self.model_a, self.spin, FULL)
        make_run(self.model_b, self.etcd, FULL)
        self.assertEqual(list(compute_board().rows["rank"]), [1, 1])

    def test_provenance_badge_says_mixed_when_both_kinds_count(self):
        reported(self.model_a, self.spin, FULL)
        make_run(self.model_a, self.etcd, FULL)
        self.assertEqual(row_of(compute_board(), self.model_a)["provenance"], "mixed")


class NotApplicableTests(WorldTestCase):
    def make_verified_without_traces(self, model, scores):
        run = make_run(model, self.etcd, {k: v for k, v in scores.items() if k != "conformance"})
        make_phase_result(run, "conformance", None, status=PhaseResult.Status.NOT_APPLICABLE)
        return run

    def test_an_na_phase_counts_zero_and_the_other_weights_stay(self):
        # Issue 37: renormalising over the missing P3 let a task without traces give a verified
        # 1.0 from P1, P2 and P4 alone; the phase is now counted as not earned.
        self.make_verified_without_traces(
            self.model_a, {"syntax": 1.0, "runtime": 1.0, "invariant": 0.5}
        )
        cell = compute_board().cell(self.model_a.pk, self.etcd.pk)
        self.assertAlmostEqual(cell["overall"], 0.15 + 0.15 + 0.35 * 0.5)

    def test_an_na_phase_is_left_out_of_that_phase_mean(self):
        make_run(self.model_a, self.spin, {"conformance": 0.5})
        self.make_verified_without_traces(self.model_a, {"syntax": 1.0})
        row = row_of(compute_board(), self.model_a)
        self.assertAlmostEqual(row["conformance"], 0.5)  # over spin only, not 0.25 over both
        self.assertAlmostEqual(row["syntax"], 0.5)

    def test_a_reported_na_phase_keeps_the_published_formula(self):
        run = reported(self.model_a, self.etcd, {"syntax": 1.0})
        make_phase_result(run, "conformance", None, status=PhaseResult.Status.NOT_APPLICABLE)
        cell = compute_board().cell(self.model_a.pk, self.etcd.pk)
        self.assertAlmostEqual(cell["overall"], 0.15)


class WeightTests(WorldTestCase):
    def test_weights_are_normalised(self):
        self.assertEqual(parse_weights("1, 1, 1, 1"), (0.25, 0.25, 0.25, 0.25))
        self.assertEqual(normalise_weights(OFFICIAL_WEIGHTS), (0.15, 0.15, 0.35, 0.35))

    def test_bad_weights_are_refused(self):
        for text in ["", "1,2,3", "0,0,0,0", "-1,1,1,1", "a,b,c,d", "nan,1,1,1"]:
            with self.subTest(text=text), pytest.raises(ValueError):
                parse_weights(text)

    def test_other_weights_can_reorder_models(self):
        make_run(self.model_a, self.spin, {"syntax": 1.0, "runtime": 1.0})
        make_run(self.model_b, self.spin, {"invariant": 1.0})
        official = compute_board()
        syntax_only = compute_board((1, 0, 0, 0))
        self.assertEqual(official.rows.model_id.iloc[0], self.model_b.pk)
        self.assertEqual(syntax_only.rows.model_id.iloc[0], self.model_a.pk)

    def test_reweighted_board_knows_the_official_rank(self):
        make_run(self.model_a, self.spin, {"syntax": 1.0, "runtime": 1.0})
        make_run(self.model_b, self.spin, {"invariant": 1.0})
        board = get_board((1, 0, 0, 0))
        self.assertEqual(board.official_rank, {self.model_b.pk: 1, self.model_a.pk: 2})


class FunnelTests(WorldTestCase):
    def test_the_funnel_counts_tasks_surviving_each_gated_stage(self):
        make_run(self.model_a, self.spin, FULL)
        # etcd: parses, fires nothing, yet has an invariant score: the gate stops it at P2.
        make_run(self.model_a, self.etcd, {"syntax": 1.0, "runtime": 0.0, "invariant": 1.0})
        funnel = compute_board().funnel().set_index("model_id").loc[self.model_a.pk]
        self.assertEqual(
            [funnel[s] for s in ["submitted", "P1 = 1", "P2 > 0", "P3 > 0", "P4 > 0"]],
            [2, 2, 1, 1, 1],
        )


class CacheTests(WorldTestCase):
    def test_a_finished_run_invalidates_the_cached_board(self):
        make_run(self.model_a, self.spin, FULL)
        self.assertEqual(len(get_board().rows), 1)
        # Approved before it finishes: the review state is not what this test is about.
        run = Run.objects.create(model=self.model_b, task=self.spin, review="approved")
        PhaseResult.objects.create(run=run, phase="syntax", status="ran", score=1.0)
        run.claim()
        run.finish(overall=0.15, fingerprint={})
        self.assertEqual(len(get_board().rows), 2)

    def test_the_board_is_served_from_cache_until_invalidated(self):
        make_run(self.model_a, self.spin, {"syntax": 1.0})
        first = get_board()
        # A phase edited behind the board's back (no run finished): the cache still answers...
        PhaseResult.objects.filter(run__model=self.model_a).update(score=0.0)
        self.assertAlmostEqual(get_board().rows.overall.iloc[0], first.rows.overall.iloc[0])
        # ...until the writer drops it.
        invalidate_board_cache()
        self.assertAlmostEqual(get_board().rows.overall.iloc[0], 0.0)


class DisplayTests(WorldTestCase):
    def test_scores_show_like_the_published_site(self):
        # A mean: 0.86547 was published as 0.8655 and then 0.866, i.e. 86.6 on the site.
        self.assertEqual(figure(0.865466125238398, MEAN), 0.866)
        self.assertEqual(percent_text(0.865466125238398, MEAN), "86.6")
        # A task score was rounded once: 0.7374999999999999 is 0.737, not 0.738.
        self.assertEqual(figure(0.7374999999999999, CELL), 0.737)
        self.assertEqual(percent_text(0.7374999999999999), "73.7")
        self.assertEqual(percent_text(None), "–")

    def test_a_new_model_is_created_on_the_board_with_its_runs(self):
        model = make_model("model-c", organisation="Org C")
        make_run(model, self.spin, FULL)
        self.assertIn(model.pk, set(get_board().rows.model_id))
