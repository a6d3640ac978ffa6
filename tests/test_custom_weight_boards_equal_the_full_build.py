"""A board under a visitor's own weights (`?w=`) is the board a full build from the runs gives,
number for number, intervals included (docs/decisions/0029-abuse-bounds.md).

Decision: it is computed from the run records the stored cells keep (decoded once per scope
version and process: the decoding was a third of each new vector's time), not from the cells'
phase means. The means cannot give it: `test_the_cells_phase_figures_do_not_determine_a_custom_
board` shows two cells with the same stored figures whose custom boards differ."""

import pandas as pd

from leaderboard.board import aggregate, store
from leaderboard.board.boards import forget_cached_boards, get_board
from leaderboard.board.policy import BEST, FIRST, MEAN, SITE
from leaderboard.models import PhaseResult, Run, Task
from tests.base import WorldTestCase, make_model, make_phase_result, make_run, make_task

PHASES = aggregate.PHASES
WEIGHTS = [(1, 1, 1, 1), (0, 0, 1, 0), (0.1, 0.2, 0.3, 0.4), (5, 0, 0, 1), (0.15, 0.15, 0.7, 0)]
CELL_COLUMNS = ["model_id", "task_id", "run_id", "n", "overall", *PHASES, "ci_low", "ci_high",
                "ci_basis", *(f"{p}_status" for p in PHASES)]  # fmt: skip
ROW_COLUMNS = ["model_id", "overall", *PHASES, "strict", "rank", "overall_ci_low",
               "overall_ci_high", "overall_ci_basis", "rank_best", "rank_worst", "tie"]  # fmt: skip


def full_build(weights, policy: str) -> aggregate.Board:
    """The board from the run tables, as the stored board's own build reads them."""
    counted = Run.objects.on_board()
    normalised = aggregate.normalise_weights(weights)
    frame = aggregate.run_frame(counted.board_rows(), counted.board_phase_rows(), normalised)
    cells = aggregate.counted_cells(frame, policy)
    n_tasks = max(Task.objects.count(), 1)
    rows = aggregate.model_rows(cells, store.models_frame(), n_tasks)
    samples = aggregate.cell_samples(
        cells, frame, policy, normalised, aggregate.units_from_database
    )
    aggregate.add_intervals(cells, rows, samples, n_tasks)
    return aggregate.Board(weights=normalised, tasks=[], rows=rows, cells=cells, policy=policy)


class CustomWeightBoardTest(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        # A task without trace data: its verified runs have P3 N/A.
        cls.untraced = make_task("untraced", position=3)
        cls.model_c = make_model("model-c")
        figures = [
            (1.0, 0.9, 0.8, 1.0), (1.0, 0.4, 0.1, 0.5), (1.0, 1.0, 1.0, 0.0),
            (0.3, 0.0, 0.0, 0.0), (1.0, 0.7, 0.35, 0.25),
        ]  # fmt: skip
        for i, model in enumerate([cls.model_a, cls.model_b, cls.model_c]):
            for j, task in enumerate([cls.spin, cls.etcd, cls.untraced]):
                for k in range((i + j) % 3 + 1):  # one, two or three runs a cell
                    p1, p2, p3, p4 = figures[(i + 2 * j + k) % len(figures)]
                    run = make_run(model, task, {"syntax": p1, "runtime": p2, "invariant": p4})
                    status = (
                        PhaseResult.Status.NOT_APPLICABLE
                        if task == cls.untraced
                        else PhaseResult.Status.TIMEOUT  # an old run's: its score counts 0
                        if (i, j, k) == (2, 1, 1)
                        else PhaseResult.Status.RAN
                    )
                    make_phase_result(run, "conformance", None if task == cls.untraced else p3,
                                      status=status)  # fmt: skip
        # A reported cell, and a model with a task not submitted.
        make_run(cls.model_c, cls.spin, {p: 0.5 for p in PHASES}, provenance="reported",
                 source="paper")  # fmt: skip
        make_run(make_model("model-d"), cls.spin, {p: 1.0 for p in PHASES})

    def setUp(self):
        forget_cached_boards()

    def assert_same_board(self, mine: aggregate.Board, theirs: aggregate.Board) -> None:
        key = ["model_id", "task_id"]
        cells = mine.cells.sort_values(key, ignore_index=True)[CELL_COLUMNS]
        expected = theirs.cells.sort_values(key, ignore_index=True)[CELL_COLUMNS]
        pd.testing.assert_frame_equal(
            cells.astype(object).where(cells.notna(), None),
            expected.astype(object).where(expected.notna(), None),
            check_exact=True,
        )
        rows = mine.rows.sort_values("model_id", ignore_index=True)[ROW_COLUMNS]
        expected_rows = theirs.rows.sort_values("model_id", ignore_index=True)[ROW_COLUMNS]
        pd.testing.assert_frame_equal(rows, expected_rows, check_exact=True, check_dtype=False)

    def test_every_custom_board_is_the_full_build_under_every_policy(self):
        for policy in (MEAN, BEST, FIRST):
            for weights in WEIGHTS:
                with self.subTest(policy=policy, weights=weights):
                    board = get_board(weights, policy, SITE)
                    self.assertTrue(board.custom or weights == (0.15, 0.15, 0.35, 0.35))
                    self.assert_same_board(board, full_build(weights, policy))

    def test_the_decoded_runs_follow_a_changed_scope(self):
        get_board(WEIGHTS[1])
        make_run(self.model_a, self.spin, {"syntax": 1.0, "runtime": 0.0, "conformance": 1.0,
                                           "invariant": 0.0})  # fmt: skip
        # Nothing is emptied by hand: the new run moved the scope's version.
        board = get_board(WEIGHTS[1])
        self.assert_same_board(board, full_build(WEIGHTS[1], MEAN))


class CellFiguresTest(WorldTestCase):
    """Why the cells' phase means are not enough (the decision above)."""

    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        # Model A's runs trade P3 for P4, model B's have both at one half: under the official
        # weights (P3 and P4 weigh alike) every run scores the same, so their cells store the
        # same phase means, overall, statuses, n and interval.
        for p3, p4 in ((1.0, 0.0), (0.0, 1.0)):
            make_run(cls.model_a, cls.spin, {"syntax": 1.0, "runtime": 1.0, "conformance": p3,
                                             "invariant": p4})  # fmt: skip
        for _ in range(2):
            make_run(cls.model_b, cls.spin, {"syntax": 1.0, "runtime": 1.0, "conformance": 0.5,
                                             "invariant": 0.5})  # fmt: skip

    def test_the_cells_phase_figures_do_not_determine_a_custom_board(self):
        official = get_board()
        a, b = (official.cell(m.pk, self.spin.pk) for m in (self.model_a, self.model_b))
        for column in ["n", "overall", *PHASES, "ci_low", "ci_high"]:
            self.assertAlmostEqual(a[column], b[column], places=12, msg=column)
        for column in ["ci_basis", *(f"{p}_status" for p in PHASES)]:
            self.assertEqual(a[column], b[column], column)
        # Under P3 alone the two cells part: the same point, different intervals; and under
        # the best policy, different points.
        p3_only = get_board((0, 0, 1, 0))
        a, b = (p3_only.cell(m.pk, self.spin.pk) for m in (self.model_a, self.model_b))
        self.assertEqual((a["overall"], b["overall"]), (0.5, 0.5))
        self.assertEqual((b["ci_low"], b["ci_high"]), (0.5, 0.5))
        self.assertEqual((a["ci_low"], a["ci_high"]), (0.0, 1.0))
        best = get_board((0, 0, 1, 0), BEST)
        self.assertEqual(best.cell(self.model_a.pk, self.spin.pk)["overall"], 1.0)
        self.assertEqual(best.cell(self.model_b.pk, self.spin.pk)["overall"], 0.5)
