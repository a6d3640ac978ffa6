"""Issue 22: a cell is, by declared policy, the mean (default), the best or the first of the
model's approved verified runs on the task, with n; the board and its exports name the policy."""

from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from leaderboard.board.boards import compute_board
from leaderboard.models import Run
from tests.base import WorldTestCase, make_run

EARLY = timezone.now() - timedelta(days=3)


def scoring(model, task, syntax, **fields):
    """A run whose cell is 0.15 × syntax (the other phases score 0)."""
    return make_run(model, task, {"syntax": syntax}, **fields)


class CellPolicy(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.first = scoring(cls.model_a, cls.spin, 0.2, created_at=EARLY)
        cls.best = scoring(cls.model_a, cls.spin, 1.0)
        cls.last = scoring(cls.model_a, cls.spin, 0.6)
        # Not approved: never part of any policy's cell.
        scoring(cls.model_a, cls.spin, 1.0, review=Run.Review.PENDING, created_at=EARLY)

    def cell(self, **options):
        return compute_board(**options).cell(self.model_a.pk, self.spin.pk)

    def test_the_default_is_the_mean_of_the_approved_runs_with_n(self):
        cell = self.cell()
        self.assertAlmostEqual(cell["overall"], 0.15 * (0.2 + 1.0 + 0.6) / 3)
        self.assertAlmostEqual(cell["syntax"], (0.2 + 1.0 + 0.6) / 3)
        self.assertEqual(cell["n"], 3)
        self.assertEqual(cell["run_id"], self.last.pk)

    def test_best_takes_the_best_run_and_first_the_earliest(self):
        best = self.cell(policy="best")
        self.assertEqual((best["run_id"], best["n"]), (self.best.pk, 3))
        self.assertAlmostEqual(best["overall"], 0.15)
        first = self.cell(policy="first")
        self.assertEqual((first["run_id"], first["n"]), (self.first.pk, 3))
        self.assertAlmostEqual(first["overall"], 0.03)

    def test_best_of_n_cannot_lift_the_default_cell(self):
        # The attack the policy answers: submit many specs and keep the best. Under the mean,
        # ten more weak runs pull the cell down instead of leaving the one good run in place.
        for _ in range(10):
            scoring(self.model_a, self.spin, 0.0)
        self.assertLess(self.cell()["overall"], 0.15 * 0.2)
        self.assertAlmostEqual(self.cell(policy="best")["overall"], 0.15)

    def test_the_page_and_the_exports_name_the_policy(self):
        page = self.client.get(reverse("leaderboard"), {"policy": "best"})
        self.assertContains(page, "best approved verified run")
        self.assertContains(self.client.get(reverse("leaderboard")), "mean of all approved")
        self.assertContains(page, "n=3")
        data = self.client.get(reverse("api_leaderboard"), {"policy": "first"}).json()
        self.assertEqual(data["policy"]["name"], "first")
        model = next(m for m in data["models"] if m["slug"] == "model-a")
        self.assertEqual(model["runs"]["spin"]["run_id"], self.first.pk)
        self.assertEqual(model["runs"]["spin"]["n"], 3)
        rows = self.client.get(reverse("leaderboard_export", args=["csv"]), {"policy": "best"})
        self.assertIn(",best,", rows.content.decode())

    def test_an_unknown_policy_falls_back_to_the_mean_and_says_why(self):
        data = self.client.get(reverse("api_leaderboard"), {"policy": "luckiest"}).json()
        self.assertEqual(data["policy"]["name"], "mean")
        self.assertIn("policy", data["errors"])
        with self.assertRaises(ValueError):
            compute_board(policy="luckiest")
