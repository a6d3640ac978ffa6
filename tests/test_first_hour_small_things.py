"""The small things a first hour trips on: a favicon; "Trace corpora" in the admin; the admin's
run list narrow, with figures rounded; `manage.py score --json` rounded like the site; the
README's admin and sign-up names as the UI spells them; `export_windows` writing into no folder
unasked; no "verified" badge on a run not scored yet; the cfg with a file field under its own
heading; a phase chart of four distinguishable colours with a 100 tick."""

import colorsys
import json
import os
from io import StringIO
from itertools import combinations
from pathlib import Path
from unittest import mock

from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from leaderboard.board import charts
from leaderboard.models import Run, TraceCorpus
from tests.base import WorldTestCase, make_phase_result, make_run

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
REFERENCE = Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla"


class FaviconTest(WorldTestCase):
    def test_every_page_links_a_favicon_that_is_served(self):
        page = self.client.get(reverse("leaderboard"))
        self.assertContains(page, 'rel="icon"')
        self.assertIsNotNone(finders.find("favicon.svg"))
        icon = self.client.get("/static/favicon.svg")
        self.assertEqual(icon.status_code, 200)

    def test_the_admin_links_it_too(self):
        self.client.force_login(self.maintainer)
        page = self.client.get(reverse("admin:index"))
        self.assertContains(page, 'rel="icon"')
        self.assertContains(page, "Django administration")  # the admin's own header still


class AdminTest(WorldTestCase):
    def setUp(self):
        self.client.force_login(self.maintainer)

    def test_trace_corpora_is_spelled_right(self):
        self.assertEqual(TraceCorpus._meta.verbose_name_plural, "trace corpora")
        index = self.client.get(reverse("admin:index"))
        self.assertContains(index, "Trace corpora")
        self.assertNotContains(index, "corpuss")

    def test_the_run_list_rounds_overall_and_leaves_provenance_to_the_filter(self):
        run = make_run(self.model_a, self.spin, overall=0.6499999999999999)
        make_phase_result(run, "syntax", 0.9999999999999999)
        page = self.client.get(reverse("admin:leaderboard_run_changelist"))
        self.assertContains(page, "0.65")
        self.assertNotContains(page, "0.6499999999999999")
        self.assertNotIn("provenance", page.context["cl"].list_display)
        phases = self.client.get(reverse("admin:leaderboard_phaseresult_changelist"))
        self.assertNotContains(phases, "0.9999999999999999")

    def test_the_readme_names_the_admin_s_filter_and_actions_as_it_shows_them(self):
        make_run(self.model_a, self.spin, review=Run.Review.PENDING, submitter=self.alice)
        page = self.client.get(reverse("admin:leaderboard_run_changelist")).content.decode()
        readme = " ".join(README.split())
        for name in ("By review", "Published, awaiting review",
                     "Approve the selected published runs for the board",
                     "Reject the selected runs (with a reason for the submitter)"):  # fmt: skip
            self.assertIn(name, page)
            self.assertIn(f"*{name}*", readme)

    def test_the_readme_names_the_sign_up_link_as_the_page_does(self):
        self.client.logout()
        self.assertContains(self.client.get(reverse("login")), ">Create one</a>")
        self.assertIn("*Create one*", README)


class ScoreJsonTest(WorldTestCase):
    def test_scores_are_the_published_figures_beside_the_floats(self):
        raw = {"overall": 0.9999999999999999,
               "phases": {"syntax": {"score": 0.6499999999999999, "status": "ran"}}}  # fmt: skip
        out = StringIO()
        with mock.patch("evaluation.surface.score_files", return_value=raw):
            call_command("score", "--task", "spin", str(REFERENCE), "--json", stdout=out)
        printed = json.loads(out.getvalue())
        self.assertEqual(printed["overall"], 1.0)
        self.assertEqual(printed["overall_unrounded"], 0.9999999999999999)
        self.assertEqual(printed["phases"]["syntax"]["score"], 0.65)
        self.assertEqual(printed["phases"]["syntax"]["score_unrounded"], 0.6499999999999999)
        self.assertNotIn("0.9999999999999999,", out.getvalue().replace("_unrounded", ""))


class ExportWindowsTest(WorldTestCase):
    WINDOWS = [{"window_id": "w1", "action": "AcquireLock"}, {"window_id": "w2", "action": "X"}]

    def export(self, *args, cwd):
        out, err = StringIO(), StringIO()
        module = "leaderboard.management.commands.export_windows"
        here = os.getcwd()
        os.chdir(cwd)
        try:
            with (
                mock.patch(f"{module}.current_corpus", return_value=mock.Mock(version="v1")),
                mock.patch(f"{module}.canonical_windows", return_value=self.WINDOWS),
            ):
                call_command("export_windows", "--task", "spin", *args, stdout=out, stderr=err)
        finally:
            os.chdir(here)
        return out.getvalue(), err.getvalue()

    def test_without_o_the_windows_go_to_standard_output_and_no_file_is_made(self):
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            out, err = self.export(cwd=folder)
            self.assertEqual(os.listdir(folder), [])
        self.assertEqual([json.loads(line) for line in out.splitlines()], self.WINDOWS)
        self.assertIn("2 windows", err)

    def test_o_writes_the_file_named(self):
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            out, _ = self.export("-o", "w.jsonl", cwd=folder)
            lines = (Path(folder) / "w.jsonl").read_text().splitlines()
        self.assertEqual(out, "")
        self.assertEqual(len(lines), 2)
        self.assertIn("export_windows --task spin -o", README)


class VerifiedBadgeTest(WorldTestCase):
    def badge(self, run) -> str:
        """The heading's badges (the run's provenance, its adapter)."""
        self.client.force_login(self.alice)
        page = self.client.get(run.get_absolute_url()).content.decode()
        start = page.index("<h1>")
        return page[start : page.index("</h1>", start)]

    def test_a_queued_private_run_wears_no_verified_badge(self):
        run = make_run(self.model_a, self.spin, submitter=self.alice, status=Run.Status.QUEUED,
                       review=Run.Review.PRIVATE)  # fmt: skip
        self.assertNotIn('class="badge verified"', self.badge(run))
        self.assertIn('<span class="badge unscored">not scored yet</span>', self.badge(run))

    def test_a_finished_run_does(self):
        run = make_run(self.model_a, self.spin, {"syntax": 1.0}, submitter=self.alice)
        self.assertIn('<span class="badge verified">verified</span>', self.badge(run))


class CfgFieldTest(WorldTestCase):
    def test_the_cfg_has_its_own_heading_and_file_field(self):
        self.client.force_login(self.alice)
        page = self.client.get(reverse("submit")).content.decode()
        adapter = page[page.index("<legend>Adapter"): page.index("</fieldset>", page.index(
            "<legend>Adapter"))]  # fmt: skip
        self.assertNotIn("cfg", adapter)
        self.assertIn("<legend>TLC configuration (optional)</legend>", page)
        self.assertIn('name="cfg_file"', page)

    def test_an_uploaded_cfg_is_the_run_s(self):
        self.client.force_login(self.alice)
        cfg = "SPECIFICATION Spec\n"
        with self.captureOnCommitCallbacks(execute=False):
            self.client.post(reverse("submit"), {
                "task": "spin", "model": "model-a", "spec_text": REFERENCE.read_text(),
                "cfg_file": SimpleUploadedFile("spin.cfg", cfg.encode())})  # fmt: skip
        run = Run.objects.get(submitter=self.alice)
        self.assertEqual(run.cfg_text, cfg)


def _hue(colour: str) -> float:
    red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(red, green, blue)[0] * 360


def test_the_phase_chart_has_four_distinct_hues_and_a_100_tick():
    hues = [_hue(c) for c in charts.PHASE_COLOURS.values()]
    gaps = [min(abs(a - b), 360 - abs(a - b)) for a, b in combinations(hues, 2)]
    assert min(gaps) > 30, hues
    figure = charts._phase_figure({"names": ["A"], "values": {"syntax": [50.0]}})
    assert 100 in figure.layout.xaxis.tickvals
