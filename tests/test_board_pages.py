"""Each board page through the test client, on a small world and on the published figures."""

import re
import tempfile
from pathlib import Path

from django.test import TestCase, override_settings
from django.urls import reverse

from leaderboard.management.commands.load_published import load_published
from leaderboard.models import Run, Task, TraceCorpus
from tests.base import WorldTestCase, make_run, make_task

FULL = {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0, "invariant": 1.0}
NO_CONTRACTS = override_settings(TASKS_DATA_DIR=Path("/nonexistent-tasks-data"))


class SmallWorldPageTests(WorldTestCase):
    def test_a_task_without_a_run_shows_not_submitted_and_counts_zero(self):
        make_run(self.model_a, self.spin, FULL)
        response = self.client.get(reverse("leaderboard"))
        row = response.context["rows"][0]
        self.assertEqual(row["overall_text"], "50.0")
        self.assertEqual([c["text"] for c in row["cells"]], ["100.0", "not submitted"])
        self.assertContains(response, "not submitted")

    def test_the_empty_board_renders(self):
        response = self.client.get(reverse("leaderboard"))
        self.assertContains(response, "No model matches these filters.")

    def test_cells_link_to_the_run_that_counts(self):
        run = make_run(self.model_a, self.spin, FULL)
        response = self.client.get(reverse("leaderboard"))
        self.assertContains(response, f'href="{reverse("run_detail", args=[run.pk])}"')

    def test_the_model_page_shows_a_task_by_phase_table(self):
        run = make_run(self.model_a, self.spin, {"syntax": 1.0, "runtime": 0.5})
        response = self.client.get(reverse("model_detail", args=["model-a"]))
        spin_row, etcd_row = response.context["task_rows"]
        self.assertEqual([p["text"] for p in spin_row["phases"]], ["100.0", "50.0", "0.0", "0.0"])
        self.assertEqual(spin_row["phases"][2]["status"], "not reached")
        self.assertFalse(etcd_row["submitted"])
        self.assertContains(response, f"run {run.pk}")

    def test_an_unknown_model_or_task_is_404(self):
        self.assertEqual(self.client.get("/models/nobody/").status_code, 404)
        self.assertEqual(self.client.get("/tasks/nothing/").status_code, 404)

    def test_the_task_page_lists_every_run_of_the_task(self):
        finished = make_run(self.model_a, self.spin, FULL)
        queued = make_run(self.model_b, self.spin)
        make_run(self.model_b, self.etcd, FULL)
        response = self.client.get(reverse("task_detail", args=["spin"]))
        self.assertEqual({r.pk for r, _, _ in response.context["runs"]}, {finished.pk, queued.pk})
        self.assertContains(response, "Queued")

    @NO_CONTRACTS
    def test_the_task_description_is_markdown_with_raw_html_escaped(self):
        Task.objects.filter(pk=self.spin.pk).update(
            description="A **spinlock**.\n\n<script>alert(1)</script> [x](javascript:alert(1))"
        )
        response = self.client.get(reverse("task_detail", args=["spin"]))
        self.assertContains(response, "<strong>spinlock</strong>", html=True)
        self.assertNotContains(response, "<script>alert(1)")
        self.assertNotContains(response, "javascript:")

    @NO_CONTRACTS
    def test_a_task_without_trace_data_says_conformance_is_na(self):
        response = self.client.get(reverse("task_detail", args=["etcd"]))
        self.assertContains(response, "No trace data: conformance N/A for specs scored here.")
        self.assertContains(response, "came from the original benchmark's harness")

    def test_a_task_with_trace_data_shows_window_counts_per_action(self):
        TraceCorpus.objects.create(
            task=self.spin,
            version="abc123",
            source="windows/spin",
            window_count=304,
            counts_by_action={"AcquireLock": 152, "ReleaseLock": 152},
        )
        response = self.client.get(reverse("task_detail", args=["spin"]))
        self.assertContains(response, "304 transition windows")
        self.assertEqual(
            response.context["traces"]["counts"], [("AcquireLock", 152), ("ReleaseLock", 152)]
        )
        listing = self.client.get(reverse("task_list"))
        self.assertContains(listing, "304 windows")
        self.assertContains(listing, "no trace data: conformance N/A")

    def test_traces_made_by_our_own_harness_say_so(self):
        mutex = make_task("mutex", position=2)
        TraceCorpus.objects.create(
            task=mutex,
            version="def456",
            source="harnesses/asterinas/traces/mutex/trace_*.jsonl",
            window_count=10,
            counts_by_action={"AcquireLock": 10},
        )
        response = self.client.get(reverse("task_detail", args=["mutex"]))
        self.assertContains(response, "made by the leaderboard's own harness")
        self.assertContains(response, "release v0.16.0")
        spin = self.client.get(reverse("task_detail", args=["spin"]))
        self.assertNotContains(spin, "made by the leaderboard's own harness")


CONTRACT = """\
slug: spin
module: spin
constants:
  Threads: '{"0", "1"}'
actions:
  AcquireLock: {params: [t], actor: t, events: [AcquireSuccess], doc: takes the lock}
invariants:
  - {name: MutualExclusion, kind: safety, definition: 'MutualExclusion == TRUE'}
excluded_invariants:
  - {name: Fairness, kind: liveness, reason: the traces observe no scheduler}
traces: null
no_traces_reason: nothing recorded
"""


class MethodologyPageTests(TestCase):
    def test_it_says_how_a_score_cannot_be_had_and_names_the_scorer_version(self):
        from evaluation.surface import SCORER_VERSION

        html = self.client.get(reverse("methodology")).content.decode()
        section = html.split('id="no-shortcuts"', 1)[1].split("<h2", 1)[0]
        for rule in (
            "P2 counts steps",
            "states of your spec",
            "Adapters translate",
            "fair negative",
            "vacuous",
            "bounds never decide",
        ):
            self.assertIn(rule, section)
        self.assertIn(f"<code>{SCORER_VERSION}</code>", html)
        self.assertIn('href="#no-shortcuts"', html.split('id="phases"', 1)[1])

    def test_it_says_verdicts_depend_on_work_bounds_and_a_time_limit_is_no_zero(self):
        html = self.client.get(reverse("methodology")).content.decode()
        section = html.split('id="work-bounds"', 1)[1].split("<h2", 1)[0]
        self.assertIn("bounded by work", section)
        self.assertIn("never on how busy the machine was", section)
        self.assertIn("could not be scored", section)
        self.assertIn("never given a 0", section)
        self.assertIn('href="#work-bounds"', html.split('id="work-bounds"', 1)[0])
        # The scorer's own caps, as the scorer holds them (the page states them in words).
        from evaluation.phases.conformance import runner

        self.assertIn(f"at most {runner.MAX_RUNS} TLC runs", section)
        self.assertIn(f"{runner.READ_OUTPUT_BYTES // 1_000_000} MB of output", section)


class TaskContractPageTests(WorldTestCase):
    def test_the_task_page_shows_the_contract(self):
        with tempfile.TemporaryDirectory() as root:
            folder = Path(root) / "spin"
            folder.mkdir()
            (folder / "task.yaml").write_text(CONTRACT)
            (folder / "description.md").write_text("## What to model\n\nThe *lock word*.")
            with override_settings(TASKS_DATA_DIR=Path(root)):
                response = self.client.get(reverse("task_detail", args=["spin"]))
        self.assertContains(response, "<h2>What to model</h2>", html=True)
        self.assertContains(response, "Threads")
        self.assertContains(response, "AcquireLock(t)")
        self.assertContains(response, "MutualExclusion")
        self.assertContains(response, "the traces observe no scheduler")

    @NO_CONTRACTS
    def test_a_task_without_a_contract_says_so(self):
        response = self.client.get(reverse("task_detail", args=["spin"]))
        self.assertContains(response, "not published yet")

    def test_traces_named_by_the_contract_but_not_imported_are_not_called_na(self):
        with tempfile.TemporaryDirectory() as root:
            (Path(root) / "spin").mkdir()
            contract = CONTRACT.replace("traces: null", "traces: {format: spin-windows, paths: []}")
            (Path(root) / "spin" / "task.yaml").write_text(contract)
            with override_settings(TASKS_DATA_DIR=Path(root)):
                response = self.client.get(reverse("task_detail", args=["spin"]))
        self.assertContains(response, "no windows have been imported")
        self.assertNotContains(response, "conformance N/A")


class PublishedBoardPageTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        load_published()

    def test_gemini_leads_with_86_6(self):
        response = self.client.get(reverse("leaderboard"))
        first = response.context["rows"][0]
        self.assertEqual(
            (first["rank"], first["name"], first["overall_text"]), (1, "Gemini 3.1 Pro", "86.6")
        )
        self.assertEqual(len(response.context["rows"]), 11)
        self.assertEqual(response.context["rows"][-1]["name"], "MiniMax-M2.7")

    def test_plotly_comes_from_our_static_files(self):
        response = self.client.get(reverse("leaderboard"))
        scripts = re.findall(r'<script[^>]+src="([^"]+)"', response.content.decode())
        self.assertIn("/static/plotly/plotly.min.js", scripts)
        self.assertFalse([s for s in scripts if "//" in s], scripts)
        self.assertContains(response, 'id="phase-chart-data"')
        self.assertEqual(self.client.get("/static/plotly/plotly.min.js").status_code, 200)

    def test_the_phase_chart_has_four_traces_of_eleven_models(self):
        chart = self.client.get(reverse("leaderboard")).context["phase_chart"]
        self.assertEqual(len(chart["data"]), 4)
        self.assertEqual(chart["data"][0]["y"][0], "Gemini 3.1 Pro")
        self.assertEqual(chart["data"][0]["x"][0], 100.0)

    def test_the_funnel_counts_tasks_per_stage(self):
        response = self.client.get(reverse("leaderboard"))
        funnel = {f["name"]: f["counts"] for f in response.context["funnel_rows"]}
        self.assertEqual(funnel["Gemini 3.1 Pro"], [11, 11, 11, 11, 11])
        counts = funnel["MiniMax-M2.7"]
        self.assertEqual(counts, sorted(counts, reverse=True))
        self.assertLess(counts[-1], counts[0])
        self.assertContains(response, "the funnel counts")

    def test_the_model_page_shows_the_published_figures(self):
        response = self.client.get(reverse("model_detail", args=["gemini-3-1-pro"]))
        self.assertContains(response, '<dd id="model-overall">86.6</dd>', html=True)
        rows = response.context["task_rows"]
        self.assertEqual(len(rows), 11)
        self.assertTrue(all(r["provenance"] == "reported" for r in rows))

    def test_the_task_list_shows_all_eleven_tasks_in_board_order(self):
        response = self.client.get(reverse("task_list"))
        slugs = [task.slug for task, _, _ in response.context["tasks"]]
        self.assertEqual(slugs[:3], ["spin", "mutex", "rwmutex"])
        self.assertEqual(len(slugs), 11)

    def test_the_task_page_lists_the_eleven_reported_runs(self):
        response = self.client.get(reverse("task_detail", args=["etcd"]))
        runs = response.context["runs"]
        self.assertEqual(len(runs), 11)
        self.assertTrue(all(run.provenance == Run.Provenance.REPORTED for run, _, _ in runs))
        self.assertContains(response, "etcdraft")


class ModelHistoryTest(WorldTestCase):
    """Issue 22 (board rule): the cell is the mean of every approved verified run, so the model
    page marks each of them as counted, and not a run that waits for review."""

    def test_the_model_page_lists_every_run_and_marks_the_ones_that_count(self):
        worse = make_run(self.model_a, self.spin, {"syntax": 1.0, "runtime": 1.0})
        best = make_run(self.model_a, self.spin, FULL)
        pending = make_run(self.model_a, self.spin, FULL, review=Run.Review.PENDING)
        latest = make_run(self.model_a, self.spin, {"syntax": 1.0})
        response = self.client.get(reverse("model_detail", args=["model-a"]))
        self.assertEqual(response.context["counted"], {worse.pk, best.pk, latest.pk})
        listed = [run.pk for run, _, _ in response.context["runs"]]
        self.assertEqual(sorted(listed), sorted([worse.pk, best.pk, pending.pk, latest.pk]))
        rows = response.content.decode().split('<table class="runs">', 1)[1].split("<tr>")[1:]
        marked = [row for row in rows if 'class="badge counted"' in row]
        self.assertEqual(len(marked), 3)
        self.assertFalse(any(f">#{pending.pk}<" in row for row in marked))
