"""What a newcomer needs without reading docs: the score explained on the home page, calls to
action, cross-links between model, task, run and compare pages, and the methodology page."""

from django.urls import reverse

from evaluation.scoring import TIMEOUT_RULE
from leaderboard.templatetags.run_extras import pct, pct_mean, signed_pct
from tests.base import WorldTestCase, make_run

FULL = {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0, "invariant": 1.0}
HALF = {"syntax": 1.0, "runtime": 0.5, "conformance": 0.5, "invariant": 0.0}


class NavigationTests(WorldTestCase):
    def test_the_home_page_explains_the_score_and_offers_submit_and_compare(self):
        make_run(self.model_a, self.spin, FULL)
        make_run(self.model_b, self.spin, HALF)
        html = self.client.get(reverse("leaderboard")).content.decode()
        explainer = html.split('id="score-explainer"')[1].split("</div>")[0]
        for weight in ("15%", "35%"):
            self.assertIn(weight, explainer)
        self.assertRegex(explainer, r"mean over all\s+2 tasks")
        self.assertIn(f'href="{reverse("methodology")}"', explainer)
        self.assertIn(f'href="{reverse("submit")}"', html.split('class="cta-row"')[1])
        self.assertIn("/compare/?a=model-a&amp;b=model-b", html)

    def test_the_header_links_the_methodology_and_marks_the_current_page(self):
        html = self.client.get(reverse("methodology")).content.decode()
        nav = html.split('<nav aria-label="Main">')[1].split("</nav>")[0]
        self.assertIn('<a href="/methodology/" aria-current="page">How scoring works</a>', nav)
        self.assertIn('href="/submit/"', nav)

    def test_the_methodology_page_states_weights_gating_and_na(self):
        response = self.client.get(reverse("methodology"))
        html = response.content.decode()
        self.assertIn("task score = 0.15 · P1 + 0.15 · P2 + 0.35 · P3 + 0.35 · P4", html)
        for anchor in ("phases", "overall", "contract", "adapter", "provenance", "differences"):
            self.assertIn(f'id="{anchor}"', html)
        self.assertIn("Gating.", html)
        # The timeout rule is the scorer's own sentence, not a paraphrase that could drift.
        self.assertIn(TIMEOUT_RULE, html)
        # Each task is listed with its trace status; the test world imported no windows.
        self.assertEqual(html.count("none: conformance N/A"), 2)

    def test_the_model_page_offers_compare_with_and_submit_for_a_missing_task(self):
        make_run(self.model_a, self.spin, FULL)
        make_run(self.model_b, self.spin, FULL)  # a model with public runs is offered
        self.client.force_login(self.alice)  # who owns model-a, so may submit for it
        html = self.client.get(reverse("model_detail", args=["model-a"])).content.decode()
        compare = html.split('id="compare-with"')[1].split("</form>")[0]
        self.assertIn('name="a" value="model-a"', compare)
        self.assertIn('<option value="model-b">Model B</option>', compare)
        self.assertNotIn('value="model-a">', compare.split("<select")[1])
        etcd_row = html.split('data-task="etcd"')[1].split("</tr>")[0]
        self.assertIn("/submit/?task=etcd&amp;model=model-a", etcd_row)

    def test_submit_links_prefill_task_and_model(self):
        self.client.force_login(self.bob)  # model-b is bob's
        response = self.client.get(reverse("submit"), {"task": "etcd", "model": "model-b"})
        self.assertContains(response, '<option value="etcd" selected>')
        self.assertContains(response, '<option value="model-b" selected>')

    def test_the_task_page_offers_submit_for_this_task(self):
        html = self.client.get(reverse("task_detail", args=["etcd"])).content.decode()
        actions = html.split('class="page-actions"')[1].split("</div>")[0]
        self.assertIn('href="/submit/?task=etcd"', actions)
        self.assertIn("Submit the first spec", html)

    def test_a_run_page_links_resubmit_compare_and_its_model(self):
        run = make_run(self.model_a, self.spin, FULL, submitter=self.alice)
        # "Resubmit" is the submitter's (docs/decisions/0030-first-hour-and-peers.md).
        self.client.force_login(self.alice)
        html = self.client.get(reverse("run_detail", args=[run.pk])).content.decode()
        actions = html.split('id="run-actions"')[1].split("</div>")[0]
        self.assertIn(f"/submit/?from={run.pk}", actions)
        self.assertIn(f"/compare/?run_a={run.pk}", actions)
        self.assertIn("/models/model-a/", actions)

    def test_a_reported_run_page_offers_to_verify_it(self):
        run = make_run(self.model_a, self.spin, FULL, provenance="reported", source="paper")
        html = self.client.get(reverse("run_detail", args=[run.pk])).content.decode()
        actions = html.split('id="run-actions"')[1].split("</div>")[0]
        self.assertIn("/submit/?task=spin&amp;model=model-a", actions)
        self.assertNotIn("?from=", actions)

    def test_the_empty_compare_page_suggests_the_top_two(self):
        make_run(self.model_a, self.spin, FULL)
        make_run(self.model_b, self.spin, HALF)
        response = self.client.get(reverse("compare"))
        self.assertContains(response, 'href="?a=model-a&amp;b=model-b" id="compare-suggestion"')


def test_scores_round_like_the_board_and_zero_deltas_are_unsigned():
    # A mean: 0.86547 is 86.6 on the published board (4 then 3 decimals); a task score is
    # rounded once: 0.7374999999999999 is 73.7 as in the paper.
    assert pct_mean(0.86547) == "86.6"
    assert pct(0.7374999999999999) == "73.7"
    assert pct(None) == "—"
    assert signed_pct(-0.0000001) == "0.0"
    assert signed_pct(-0.038) == "-3.8"
    assert signed_pct(0.125) == "+12.5"
