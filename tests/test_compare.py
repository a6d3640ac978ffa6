"""Compare two models or two runs: tables with deltas, action grids, the paired note."""

import json
import random
import re
from itertools import combinations

from django.urls import reverse

from leaderboard.compare.overview import _best_pair
from tests.base import WorldTestCase, make_action_result, make_model, make_run

PHASES = {"syntax": 1.0, "runtime": 1.0, "conformance": 0.5, "invariant": 1.0}


def conformance_of(run):
    return run.phase_results.get(phase="conformance")


class CompareModelsTest(WorldTestCase):
    def setUp(self):
        self.run_a = make_run(self.model_a, self.spin, phases=PHASES)
        self.run_b = make_run(self.model_b, self.spin, phases={**PHASES, "conformance": 0.0})
        # spin actions: Acquire passes in both, Release in A only, Retry in B only, Spin in neither.
        for run, passing in (
            (self.run_a, {"Acquire", "Release"}),
            (self.run_b, {"Acquire", "Retry"}),
        ):
            for action in ("Acquire", "Release", "Retry", "Spin"):
                make_action_result(conformance_of(run), action, 4 if action in passing else 3, 4)
        make_run(self.model_a, self.etcd, phases={"syntax": 1.0, "runtime": 0.5})
        make_run(self.model_b, self.etcd, phases={"syntax": 1.0}, provenance="reported",
                 source="SysMoBench paper")  # fmt: skip

    def page(self):
        return self.client.get(reverse("compare"), {"a": "model-a", "b": "model-b"})

    def test_it_offers_pickers_when_empty(self):
        response = self.client.get(reverse("compare"))
        self.assertContains(response, 'id="pick-a"')
        self.assertContains(response, '<option value="model-b">Model B</option>')
        self.assertNotContains(response, "compare-chart-data")

    def test_it_shows_per_task_scores_with_deltas(self):
        html = self.page().content.decode()
        spin_row = html.split('data-task="spin"')[1].split("</tr>")[0]
        cells = re.findall(r'<td class="num[^"]*">([^<]+)</td>', spin_row)
        # cell = .15 + .15 + .35*conf + .35: A 0.825, B 0.65
        self.assertEqual(cells[:3], ["82.5", "65.0", "-17.5"])
        self.assertIn(f"A run {self.run_a.pk}", spin_row)
        self.assertIn("compare these runs", spin_row)

    def test_it_shows_per_phase_means_with_deltas(self):
        html = self.page().content.decode()
        table = html.split('class="compare-phases"')[1].split("</table>")[0]
        conformance = table.split("P3 conformance")[1].split("</tr>")[0]
        self.assertEqual(re.findall(r">([-+]?\d+\.\d)<", conformance), ["25.0", "0.0", "-25.0"])

    def test_each_action_shows_both_window_counts_and_rates(self):
        html = self.page().content.decode()
        grid = html.split('id="task-spin"')[1].split("</section>")[0]
        release = grid.split('data-action="Release"')[1].split("</tr>")[0]
        cells = re.findall(r'<td class="num[^"]*">([^<]+)</td>', release)
        self.assertEqual(cells, ["4/4", "100%", "3/4", "75%"])
        self.assertIn('class="differs"', grid.split('data-action="Release"')[0][-30:])

    def test_windows_one_spec_accepts_and_the_other_rejects_link_to_both_verdicts(self):
        from tests.base import make_window_result

        for run, verdict in ((self.run_a, "pass"), (self.run_b, "fail")):
            make_window_result(conformance_of(run), "Release", verdict, window_id="w7")
        for run in (self.run_a, self.run_b):  # same verdict: not listed
            make_window_result(conformance_of(run), "Acquire", "pass", window_id="w8")
        detail = self.page().context["tasks"][0]["detail"]
        self.assertEqual(detail["split_count"], 1)
        (window,) = detail["split_windows"]
        self.assertEqual((window["window_id"], window["a"], window["b"]), ("w7", "pass", "fail"))
        page = self.client.get(window["url"]).content.decode()
        both = page.split('id="both-verdicts"')[1].split("</table>")[0]
        self.assertEqual(re.findall(r"(accepts|rejects)", both), ["accepts", "rejects"])
        self.assertIn(f"run {self.run_b.pk}", both)

    def test_invariants_are_side_by_side(self):
        from tests.base import make_invariant_result

        for run, verdict in ((self.run_a, "holds"), (self.run_b, "violated")):
            inv = run.phase_results.get(phase="invariant")
            make_invariant_result(inv, "MutualExclusion", verdict)
        rows = self.page().context["tasks"][0]["detail"]["invariants"]
        self.assertEqual(
            rows, [{"name": "MutualExclusion", "a": "holds", "b": "violated", "differs": True}]
        )

    def test_tasks_neither_model_ran_collapse_into_one_line(self):
        from tests.base import make_task

        make_task("curp", position=3)
        response = self.page()
        self.assertEqual([t["task"]["slug"] for t in response.context["tasks"]], ["spin", "etcd"])
        self.assertContains(response, 'id="neither-ran"')
        self.assertNotContains(response, 'id="task-curp"')

    def test_the_home_page_features_a_pair_with_per_action_data_on_both_sides(self):
        response = self.client.get(reverse("leaderboard"))
        featured = response.context["featured"]
        self.assertEqual((featured["a"], featured["b"], featured["shared_tasks"]),
                         ("Model A", "Model B", 1))  # fmt: skip
        box = response.content.decode().split('id="featured-compare"')[1].split("</section>")[0]
        self.assertIn("?a=model-a&amp;b=model-b", box)
        release = box.split("<code>Release</code>")[1].split("</tr>")[0]
        self.assertEqual(re.findall(r">(\d+/\d+)<", release), ["4/4", "3/4"])

    def test_without_verified_pairs_nothing_is_featured(self):
        from leaderboard.models import ActionResult

        ActionResult.objects.filter(phase_result__run=self.run_b).delete()
        self.assertIsNone(self.client.get(reverse("leaderboard")).context["featured"])

    def test_a_reported_run_gets_a_note_instead_of_a_grid(self):
        html = self.page().content.decode()
        grid = html.split('id="task-etcd"')[1].split("</section>")[0]
        self.assertIn("B&#x27;s figures are reported by SysMoBench", grid)
        self.assertNotIn("actions-sbs", grid)

    def test_the_paired_note_counts_units_and_directions(self):
        response = self.page()
        paired = response.context["paired"]
        self.assertEqual(
            {k: paired[k] for k in ("units", "differ", "a_better", "b_better", "p_value")},
            {"units": 4, "differ": 2, "a_better": 1, "b_better": 1, "p_value": 1.0},
        )
        self.assertContains(response, "Of 4 task×action units")
        # Two differing units can never be significant: the page says so instead of p = 1.000.
        self.assertContains(response, "too few discordant units to tell")
        self.assertNotContains(response, "p = 1.000")

    def test_the_chart_uses_local_plotly_and_both_models(self):
        response = self.page()
        self.assertContains(response, "/static/plotly/plotly.min.js")
        self.assertNotContains(response, "cdn.plot.ly")
        data = json.loads(
            response.content.decode()
            .split('id="compare-chart-data" type="application/json">')[1]
            .split("</script>")[0]
        )
        self.assertEqual([t["name"] for t in data["data"]], ["Model A", "Model B"])
        self.assertEqual(data["data"][0]["y"][:1], [82.5])

    def test_the_url_is_shareable(self):
        self.assertContains(self.page(), "?a=model-a&amp;b=model-b")

    def test_a_model_without_runs_shows_not_submitted(self):
        make_model("model-c")
        response = self.client.get(reverse("compare"), {"a": "model-a", "b": "model-c"})
        spin_row = response.content.decode().split('data-task="spin"')[1].split("</tr>")[0]
        self.assertIn("not submitted", spin_row)
        self.assertEqual(response.context["phase_rows"][-1]["b"], None)
        self.assertIn("B has no run for this task", response.context["tasks"][0]["grid"]["note"])

    def test_an_unknown_model_is_named(self):
        response = self.client.get(reverse("compare"), {"a": "model-a", "b": "nosuch"})
        self.assertContains(response, "Unknown model: nosuch")


class CompareRunsTest(WorldTestCase):
    def test_two_runs_of_one_task_are_compared_by_phase_and_action(self):
        a = make_run(self.model_a, self.spin, phases=PHASES)
        b = make_run(self.model_a, self.spin, phases={**PHASES, "invariant": 0.5})
        make_action_result(conformance_of(a), "Acquire", 2, 2)
        make_action_result(conformance_of(b), "Acquire", 1, 2)
        response = self.client.get(reverse("compare"), {"run_a": a.pk, "run_b": b.pk})
        self.assertEqual(response.context["mode"], "runs")
        invariant = response.content.decode().split("P4 invariant")[1].split("</tr>")[0]
        self.assertIn("-50.0", invariant)
        self.assertEqual(response.context["tasks"][0]["grid"]["a_only"], ["Acquire"])
        self.assertEqual(response.context["paired"]["a_better"], 1)

    def test_the_spec_diff_of_two_runs_is_shown(self):
        a = make_run(self.model_a, self.spin, phases=PHASES, spec_text="A == 1\nB == 2\n")
        b = make_run(self.model_b, self.spin, phases=PHASES, spec_text="A == 1\nB == 3\n")
        response = self.client.get(reverse("compare"), {"run_a": a.pk, "run_b": b.pk})
        self.assertContains(response, '<span class="del">-B == 2</span>')
        self.assertContains(response, '<span class="add">+B == 3</span>')

    def test_one_run_alone_lists_runs_of_its_task_to_compare_with(self):
        a = make_run(self.model_a, self.spin, phases=PHASES)
        b = make_run(self.model_b, self.spin, phases=PHASES)
        make_run(self.model_b, self.etcd, phases=PHASES)
        response = self.client.get(reverse("compare"), {"run_a": a.pk})
        self.assertEqual(response.context["partners"]["runs"], [b])
        self.assertContains(response, f"?run_a={a.pk}&amp;run_b={b.pk}")

    def test_runs_of_different_tasks_are_refused(self):
        a = make_run(self.model_a, self.spin, phases=PHASES)
        b = make_run(self.model_a, self.etcd, phases=PHASES)
        response = self.client.get(reverse("compare"), {"run_a": a.pk, "run_b": b.pk})
        self.assertContains(response, "compared only on one task")
        self.assertIsNone(response.context["mode"])


class WindowPairVisibilityTest(WorldTestCase):
    def test_another_accounts_private_window_is_not_shown_beside_a_public_one(self):
        from django.contrib.auth import get_user_model

        from leaderboard.models import Run
        from tests.base import make_window_result

        owner = get_user_model().objects.create_user("owner")
        public = make_run(self.model_a, self.spin, phases=PHASES)
        private = make_run(self.model_b, self.spin, phases=PHASES, submitter=owner,
                           review=Run.Review.PRIVATE)  # fmt: skip
        mine = make_window_result(conformance_of(public), verdict="pass", window_id="w3")
        theirs = make_window_result(conformance_of(private), verdict="fail", window_id="w3",
                                    reason="SECRET-REASON")  # fmt: skip
        url = reverse("window_detail", args=[public.pk, mine.pk]) + f"?vs={theirs.pk}"
        self.assertNotContains(self.client.get(url), "SECRET-REASON")
        self.client.force_login(owner)
        self.assertContains(self.client.get(url), "SECRET-REASON")


def _every_pair(tasks_of, rank):
    """The featured pair as the home page first chose it: every pair of models compared."""
    best, best_key = None, None
    for a, b in combinations(sorted(tasks_of, key=lambda m: (rank.get(m, 0), m)), 2):
        shared = sorted(set(tasks_of[a]) & set(tasks_of[b]))
        key = (len(shared), -(rank.get(a, 0) + rank.get(b, 0)))
        if shared and (best_key is None or key > best_key):
            best, best_key = (a, b, shared), key
    return best


def test_the_featured_pair_is_the_one_every_pair_compared_would_choose():
    # Few tasks and repeated ranks, so that task sets and rank sums tie often.
    generator = random.Random(24)
    for _ in range(400):
        models = generator.sample(range(1, 60), generator.randint(0, 14))
        tasks_of = {
            m: {t: 1000 * m + t for t in range(1, 5) if generator.random() < 0.6} for m in models
        }
        tasks_of = {m: tasks for m, tasks in tasks_of.items() if tasks}
        rank = {m: generator.randint(1, 6) for m in tasks_of}
        assert _best_pair(tasks_of, rank) == _every_pair(tasks_of, rank)


def test_run_ids_are_queried_in_slices_the_database_takes(monkeypatch):
    from django.db import connection

    from leaderboard.models.run_queries import id_batches

    ids = list(range(1, 121))
    monkeypatch.setattr(connection.features, "max_query_params", 50)
    batches = [list(b) for b in id_batches(ids)]
    assert len(batches) > 1 and max(len(b) for b in batches) < 50
    assert [i for b in batches for i in b] == ids
    monkeypatch.setattr(connection.features, "max_query_params", None)
    assert [list(b) for b in id_batches(ids)] == [ids]
    assert list(id_batches([])) == []
