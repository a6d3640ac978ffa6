"""Custom weights cannot be used to load the service (docs/decisions/0029-abuse-bounds.md): each new
`?w=` value cost a web process a board's arithmetic and left a key in the shared cache, whose Redis
also holds the job queue; GET had no limit. Now a board under custom weights is computed from the
stored per-run figures, kept per process under a bound and never in the shared cache, and each
new one counts against the client address's rate of costly reads (a board already computed is
served without counting)."""

from django.core.cache import cache
from django.test import override_settings
from django.urls import reverse

from leaderboard.board import boards
from leaderboard.board.boards import compute_board, forget_cached_boards, get_board
from tests.base import WorldTestCase, make_run

FULL = {"syntax": 1.0, "runtime": 0.5, "conformance": 0.25, "invariant": 1.0}


def weights(i: int) -> str:
    return f"1,{i + 1},1,1"


class CustomWeightsTest(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        make_run(cls.model_a, cls.spin, FULL)
        make_run(cls.model_b, cls.spin, {"syntax": 1.0})

    def setUp(self):
        forget_cached_boards()

    def test_boards_under_custom_weights_stay_out_of_the_shared_cache_and_are_bounded(self):
        # The attack: one new weight vector after another.
        for i in range(boards.CUSTOM_BOARDS_KEPT + 8):
            self.assertEqual(self.client.get(reverse("leaderboard"), {"w": weights(i)}).status_code,
                             200)  # fmt: skip
        board = get_board(weights(0).split(","))
        self.assertIsNone(cache.get(board.key))
        self.assertLessEqual(len(boards._CUSTOM_BOARDS._items), boards.CUSTOM_BOARDS_KEPT)
        # No computed board is in the shared cache, the default one neither: a process keeps
        # its own (docs/decisions/0026-stored-board-and-paging.md).
        self.assertIsNone(cache.get(get_board().key))
        self.assertIs(get_board(), get_board())

    def test_a_custom_board_has_the_figures_of_a_fresh_computation(self):
        w = ["0", "1", "0", "0"]
        served, fresh = get_board(w), compute_board(w)
        cell = (self.model_a.pk, self.spin.pk)
        self.assertEqual(served.cell(*cell)["overall"], fresh.cell(*cell)["overall"])
        self.assertAlmostEqual(served.cell(*cell)["overall"], 0.5)

    @override_settings(RATE_LIMIT_CUSTOM_BOARDS_PER_IP=(3, 600))
    def test_each_new_weighting_counts_against_the_address_a_computed_one_does_not(self):
        for i in range(3):
            self.assertEqual(self.client.get("/", {"w": weights(i)}).status_code, 200)
        again = self.client.get("/", {"w": weights(1)})
        self.assertEqual(again.status_code, 200)  # already computed: served, not counted
        over = self.client.get("/", {"w": weights(3)})
        self.assertEqual(over.status_code, 429)
        self.assertContains(over, "Too many boards under new weights", status_code=429)
        self.assertTrue(0 < int(over["Retry-After"]) <= 600)
        # The exports and the API answer the same limit in their own shape.
        api = self.client.get(reverse("api_leaderboard"), {"w": weights(4)})
        self.assertEqual(api.status_code, 429)
        self.assertEqual(api.json()["error"]["code"], "rate_limited")
        csv = self.client.get("/leaderboard.csv", {"w": weights(5)})
        self.assertEqual(csv.status_code, 429)
        # The default board is never limited.
        self.assertEqual(self.client.get("/").status_code, 200)
