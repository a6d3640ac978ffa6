"""Sort, filter and phase weights live in the URL and are applied server-side."""

from django.test import TestCase
from django.urls import reverse

from leaderboard.management.commands.load_published import load_published
from leaderboard.models import ModelUnderTest
from tests.base import make_model, make_run, make_task


class BoardUrlStateTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_published()

    def board(self, **params):
        response = self.client.get(reverse("leaderboard"), params)
        self.assertEqual(response.status_code, 200)
        return response

    def names(self, **params):
        return [r["name"] for r in self.board(**params).context["rows"]]

    def test_sorting_by_name_orders_alphabetically(self):
        names = self.names(sort="name")
        self.assertEqual(names, sorted(names, key=str.lower))
        self.assertEqual(self.names(sort="-name"), names[::-1])

    def test_sorting_by_a_phase_puts_its_best_first(self):
        rows = self.board(sort="-conformance").context["rows"]
        values = [r["phases"][2]["value"] for r in rows]
        self.assertEqual(values, sorted(values, reverse=True))
        self.assertEqual(rows[0]["name"], "GPT-5.4")

    def test_sorting_by_a_task_column_orders_by_that_cell(self):
        rows = self.board(sort="etcd").context["rows"]
        values = [r["cells"][-1]["value"] for r in rows]
        self.assertEqual(values, sorted(values))

    def test_header_links_toggle_the_direction_and_keep_the_filters(self):
        response = self.board(sort="-overall", org="Anthropic")
        headers = {h["key"]: h for h in response.context["headers"]["fixed"]}
        self.assertEqual(headers["overall"]["url"], "?org=Anthropic&sort=overall")
        self.assertEqual(headers["overall"]["arrow"], "▼")
        self.assertEqual(headers["name"]["url"], "?org=Anthropic&sort=name")

    def test_an_unknown_sort_column_falls_back_to_rank_with_a_message(self):
        response = self.board(sort="nonsense")
        self.assertContains(response, "Unknown sort column")
        self.assertEqual(response.context["rows"][0]["name"], "Gemini 3.1 Pro")

    def test_filtering_by_organisation(self):
        self.assertEqual(self.names(org="Anthropic"), ["Claude Opus 4.7", "Claude Sonnet 4.6"])

    def test_filtering_keeps_the_global_rank(self):
        rows = self.board(org="OpenAI").context["rows"]
        self.assertEqual([(r["name"], r["rank"]) for r in rows], [("GPT-5.4", 3), ("GPT-5.2", 8)])

    def test_filtering_by_kind(self):
        self.assertEqual(len(self.names(kind="llm")), 11)
        self.assertEqual(self.names(kind="agent"), [])
        agent = make_model("agent-x", name="Agent X", kind=ModelUnderTest.Kind.AGENT)
        make_run(agent, make_task("extra", position=99), {"syntax": 1.0})
        self.assertEqual(self.names(kind="agent"), ["Agent X"])

    def test_filters_offer_the_organisations_on_the_board(self):
        choices = [c for c, _ in self.board().context["form"].fields["org"].choices]
        self.assertIn("Moonshot", choices)
        self.assertEqual(choices[0], "")

    def test_official_weights_show_no_rank_change_column(self):
        response = self.board()
        self.assertFalse(response.context["custom_weights"])
        self.assertNotContains(response, "Δ rank")

    def test_custom_weights_rerank_and_show_the_rank_change(self):
        response = self.board(w="0,0,0,1")
        self.assertTrue(response.context["custom_weights"])
        self.assertContains(response, "Δ rank")
        rows = response.context["rows"]
        invariants = [r["phases"][3]["value"] for r in rows]
        self.assertEqual(invariants, sorted(invariants, reverse=True))
        for row in rows:
            self.assertEqual(row["delta"], row["official_rank"] - row["rank"])
        gpt52 = next(r for r in rows if r["name"] == "GPT-5.2")
        self.assertGreater(gpt52["delta"], 0)  # strong on invariants, weak on runtime

    def test_the_official_weights_written_out_are_the_official_board(self):
        official = self.names()
        self.assertEqual(self.names(w="0.15,0.15,0.35,0.35"), official)
        self.assertEqual(self.names(w="3,3,7,7"), official)

    def test_invalid_weights_fall_back_to_official_with_a_message(self):
        response = self.board(w="1,2")
        self.assertContains(response, "weights must be four non-negative numbers")
        self.assertFalse(response.context["custom_weights"])

    def test_a_weight_that_is_not_a_number_is_named_in_plain_words(self):
        response = self.board(w="abc,0.15,0.35,0.35")
        self.assertContains(response, "“abc” is not a number")
        self.assertNotContains(response, "could not convert")
