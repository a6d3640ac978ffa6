"""The stored board (leaderboard/board/store.py) is kept up to date change by change, and what
it holds is what a build from the runs gives: after any sequence of finished, approved,
rejected, deleted and edited runs, `store.drift()` finds nothing, and every other view (policy,
table, weights) is read from the stored runs exactly as from the database."""

import io
import random
from unittest import mock

import pandas as pd
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboard.board import aggregate, store, uncertainty
from leaderboard.board.boards import get_board
from leaderboard.models import BoardMark, PhaseResult, Run
from tests.base import (
    WorldTestCase,
    make_action_result,
    make_invariant_result,
    make_model,
    make_run,
)

PHASES = ("syntax", "runtime", "conformance", "invariant")
VIEWS = [
    (weights, policy, table)
    for weights in (None, (1, 0, 0, 0), (0.25, 0.25, 0.25, 0.25), (0.1, 0.2, 0.3, 0.4))
    for policy in ("mean", "best", "first")
    for table in ("site", "paper")
]


class StoredBoardWorld(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.models = [cls.model_a, cls.model_b] + [make_model(f"model-{i}") for i in range(4)]

    def setUp(self):
        self.rng = random.Random(24)

    def random_phases(self) -> dict:
        return {p: round(self.rng.random(), 3) for p in PHASES}

    def finish_a_run(self, review=Run.Review.APPROVED) -> Run:
        """A run the way the job ends one: results written while RUNNING, then Run.finish."""
        model, task = self.rng.choice(self.models), self.rng.choice([self.spin, self.etcd])
        run = make_run(model, task, status=Run.Status.RUNNING, attempts=1, review=review)
        for phase, score in self.random_phases().items():
            status = "n/a" if phase == "conformance" and task == self.etcd else "ran"
            result = PhaseResult.objects.create(run=run, phase=phase, score=score, status=status)
            if phase == "conformance" and status == "ran":
                make_action_result(result, "AcquireLock", self.rng.randint(0, 4), 4)
            if phase == "invariant":
                make_invariant_result(result, "Safety", self.rng.choice(["holds", "violated"]))
        with self.captureOnCommitCallbacks(execute=True):
            run.finish(run.weighted_score(), {})
        return run

    def change_something(self) -> str:
        runs = list(Run.objects.filter(status=Run.Status.FINISHED))
        choice = self.rng.choice(["finish", "pending", "approve", "reject", "delete", "edit"])
        with self.captureOnCommitCallbacks(execute=True):
            if choice == "finish" or not runs:
                self.finish_a_run()
            elif choice == "pending":
                self.finish_a_run(review=Run.Review.PENDING)
            elif choice == "approve":
                pending = [r for r in runs if r.review == Run.Review.PENDING]
                if pending:
                    self.rng.choice(pending).approve(self.maintainer)
            elif choice == "reject":
                approved = [r for r in runs if r.review == Run.Review.APPROVED]
                if approved:
                    self.rng.choice(approved).reject(self.maintainer, "not reproducible")
            elif choice == "delete":
                self.rng.choice(runs).delete()
            else:  # an operator's edit of one phase result, through the ORM
                result = PhaseResult.objects.filter(run__in=runs).order_by("?").first()
                if result is not None:
                    result.score = round(self.rng.random(), 3)
                    result.save()
        return choice

    maxDiff = None

    def assert_no_drift(self):
        self.assertEqual({s: d for s, d in store.drift().items() if d}, {})


class KeptChangeByChange(StoredBoardWorld):
    def test_after_every_change_the_stored_board_is_a_build_from_the_runs(self):
        for _ in range(6):
            self.finish_a_run()
        get_board()  # the default scope is built from here on, then only refreshed
        done = []
        for _ in range(25):
            done.append(self.change_something())
            self.assertFalse(BoardMark.objects.exists(), "the refresh took the mark in")
            self.assert_no_drift()
        self.assertGreaterEqual(len(set(done)), 5, done)

    def test_every_view_reads_the_stored_runs_as_the_database_has_them(self):
        for _ in range(12):
            self.finish_a_run()
        # Reported runs: one with the paper table's own figures, one the paper table leaves out.
        paper = {"paper": {"phases": self.random_phases()}}
        make_run(self.model_b, self.spin, self.random_phases(), provenance="reported",
                 source="paper", fingerprint=paper)  # fmt: skip
        unpublished = make_model("reported-elsewhere")
        make_run(unpublished, self.etcd, self.random_phases(), provenance="reported",
                 source="paper")  # fmt: skip
        get_board()
        scope = store.scope_of(None)
        stored, _, _ = store.stored_runs(scope)
        counted = Run.objects.on_board()
        database = aggregate.run_frame(
            counted.board_rows(), counted.board_phase_rows(), (1, 0, 0, 0)
        )
        statuses = [f"{p}_status" for p in PHASES]
        columns = ["run_id", "model_id", "task_id", "provenance", "created_at", *PHASES, "overall"]
        mine = aggregate.scored(stored, (1, 0, 0, 0)).sort_values("run_id", ignore_index=True)
        theirs = database.sort_values("run_id", ignore_index=True)
        pd.testing.assert_frame_equal(mine[columns], theirs[columns], check_exact=True)
        self.assertEqual(
            mine[statuses].fillna("none").to_dict("records"),
            theirs[statuses].fillna("none").to_dict("records"),
        )
        self.assertEqual(store.stored_runs(scope)[1], counted.board_published_figures("paper"))
        for weights, policy, table in VIEWS:
            with self.subTest(weights=weights, policy=policy, table=table):
                board = get_board(weights, policy, table)
                self.assertEqual(len(board.rows), len(set(board.cells.model_id)))
                paper_only = table == "paper"
                self.assertEqual(
                    board.cell(unpublished.pk, self.etcd.pk) is not None, not paper_only
                )

    def test_a_finished_run_is_on_the_next_board_under_a_new_key(self):
        self.finish_a_run()
        before = get_board()
        run = self.finish_a_run()
        after = get_board()
        self.assertNotEqual(before.key, after.key)
        cell = after.cell(run.model_id, run.task_id)
        self.assertIsNotNone(cell)
        self.assertEqual(cell["run_id"], run.pk)

    def test_a_refresh_that_fails_leaves_its_mark_for_the_next_reader(self):
        get_board()
        with mock.patch.object(store, "_build", side_effect=RuntimeError("database went away")):
            with self.assertLogs("leaderboard.models.signals", "ERROR"):
                run = self.finish_a_run()
        self.assertTrue(BoardMark.objects.exists())
        cell = get_board().cell(run.model_id, run.task_id)
        self.assertEqual(cell["run_id"], run.pk)
        self.assertFalse(BoardMark.objects.exists())
        self.assert_no_drift()


class RebuildCommand(StoredBoardWorld):
    def test_check_finds_an_edit_that_sent_no_signal_and_a_rebuild_mends_it(self):
        for _ in range(4):
            self.finish_a_run()
        get_board()
        call_command("rebuild_board", "--check", stdout=io.StringIO())
        # A bulk UPDATE sends no signal: the stored board does not know the run left it.
        gone = Run.objects.filter(status=Run.Status.FINISHED).first()
        Run.objects.filter(pk=gone.pk).update(review=Run.Review.REJECTED)
        with self.assertRaisesMessage(CommandError, "stored figures differ from the runs"):
            call_command("rebuild_board", "--check", stdout=io.StringIO())
        call_command("rebuild_board", stdout=io.StringIO())
        self.assert_no_drift()
        self.assertNotIn(gone.pk, set(get_board().cells.run_id))


class RankRangesAtScale(StoredBoardWorld):
    def test_rank_ranges_and_ties_by_binary_search_follow_their_definition(self):
        for _ in range(300):
            n = self.rng.randint(1, 25)
            points = [round(self.rng.random(), 2) for _ in range(n)]
            intervals = [
                None
                if self.rng.random() < 0.3
                else (p - round(self.rng.random() / 5, 2), p + round(self.rng.random() / 5, 2))
                for p in points
            ]
            bounds = [iv or (p, p) for p, iv in zip(points, intervals, strict=True)]
            lows = [round(lo, 9) for lo, _ in bounds]
            highs = [round(hi, 9) for _, hi in bounds]
            expected = [
                (1 + sum(lo > hi for lo in lows), sum(h >= lo for h in highs))
                for lo, hi in zip(lows, highs, strict=True)
            ]
            ranges = uncertainty.rank_ranges(points, intervals)
            self.assertEqual(ranges, expected)
            overlapping = [
                any(j != i and b <= w_i and b_i <= w for j, (b, w) in enumerate(ranges))
                for i, (b_i, w_i) in enumerate(ranges)
            ]
            self.assertEqual(uncertainty.ties(ranges), overlapping)
