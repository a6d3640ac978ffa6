"""The published SysMoBench figures load as reported runs and our aggregate reproduces the paper.

Expected numbers are read from paper_summary_repaired.csv at test time, never typed in here.
"""

import csv
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import TestCase

from leaderboard.board.aggregate import PHASES
from leaderboard.board.boards import compute_board
from leaderboard.management.commands.load_published import DEFAULT_FIXTURE, load_published
from leaderboard.models import ModelUnderTest, PhaseResult, Run, Task
from leaderboard.shared.rounding import CELL, MEAN, figure
from tests.base import make_model, make_run

PAPER = Path(settings.SYSMOBENCH_DATA_DIR) / "leaderboard" / "paper_summary_repaired.csv"
PAPER_PHASES = dict(
    zip(
        PHASES,
        ["phase1_compilation", "phase2_runtime", "phase3_conformance", "phase4_invariant"],
        strict=True,
    )
)
BOARD_ORDER = "spin mutex rwmutex dqueue ringbuffer locksvc curp raftkvs redisraft zookeeper etcd"


def fixture_display_names() -> dict[str, str]:
    """config id -> display name, as the fixture builder maps them."""
    from fixtures.build_published import MODELS

    return {config_id: entry[0] for config_id, entry in MODELS.items()}


def paper_rows() -> list[dict]:
    if not PAPER.is_file():
        pytest.skip(f"benchmark data not found at {PAPER}")
    with open(PAPER, newline="") as f:
        return list(csv.DictReader(f))


class PublishedFixtureTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.created = load_published()

    def test_it_loads_11_tasks_11_models_and_121_reported_runs(self):
        self.assertEqual(
            self.created, {"Task": 11, "ModelUnderTest": 11, "Run": 121, "PhaseResult": 484}
        )
        self.assertEqual(Run.objects.reported().finished().count(), 121)
        self.assertFalse(Run.objects.exclude(spec_text="").exists())

    def test_every_reported_run_names_its_source(self):
        sources = set(Run.objects.values_list("source", flat=True))
        self.assertEqual(len(sources), 1)
        self.assertIn("detail_repaired.csv", sources.pop())

    def test_loading_twice_changes_nothing(self):
        before = {m: m.objects.count() for m in (Task, ModelUnderTest, Run, PhaseResult)}
        self.assertEqual(load_published(), {})
        self.assertEqual(before, {m: m.objects.count() for m in before})

    def test_it_keeps_runs_of_our_own_when_loaded_again(self):
        ours = make_run(Task.objects.get(slug="spin").runs.first().model, Task.objects.first())
        load_published()
        self.assertTrue(Run.objects.filter(pk=ours.pk, provenance="verified").exists())

    def test_tasks_follow_the_published_column_order(self):
        self.assertEqual(" ".join(Task.objects.values_list("slug", flat=True)), BOARD_ORDER)
        self.assertEqual(Task.objects.get(slug="etcd").module_name, "etcdraft")

    def test_a_phase_that_did_not_run_is_skipped_without_score(self):
        skipped = PhaseResult.objects.filter(status="skipped")
        self.assertTrue(skipped.exists())
        self.assertEqual(set(skipped.values_list("phase", flat=True)), {"runtime"})
        self.assertFalse(skipped.exclude(score=None).exists())

    def test_our_aggregate_reproduces_every_published_model_mean(self):
        names = fixture_display_names()
        rows = compute_board().rows.set_index("name")
        for paper in paper_rows():
            ours = rows.loc[names[paper["model"]]]
            with self.subTest(model=paper["model"]):
                self.assertEqual(figure(ours["overall"], MEAN), float(paper["overall_score"]))
                for phase, column in PAPER_PHASES.items():
                    self.assertEqual(figure(ours[phase], MEAN), float(paper[column]), phase)

    def test_our_cells_reproduce_every_published_task_score(self):
        names = fixture_display_names()
        board = compute_board()
        models = dict(ModelUnderTest.objects.values_list("name", "pk"))
        tasks = dict(Task.objects.values_list("slug", "pk"))
        for paper in paper_rows():
            for slug, task_pk in tasks.items():
                cell = board.cell(models[names[paper["model"]]], task_pk)
                # Cells were published rounded once from the raw value (0.73749999 -> 0.737).
                expected = float(paper[f"sys_{slug}"])
                self.assertEqual(figure(cell["overall"], CELL), expected, (paper["model"], slug))

    def test_the_ranking_is_the_published_order(self):
        names = fixture_display_names()
        expected = [names[p["model"]] for p in paper_rows()]
        self.assertEqual(list(compute_board().rows.name), expected)
        self.assertEqual(expected[0], "Gemini 3.1 Pro")
        self.assertEqual(expected[-1], "MiniMax-M2.7")

    def test_a_verified_run_replaces_the_reported_cell(self):
        model = ModelUnderTest.objects.get(name="MiniMax-M2.7")
        spin = Task.objects.get(slug="spin")
        full = dict.fromkeys(PHASES, 1.0)
        run = make_run(model, spin, full)
        cell = compute_board().cell(model.pk, spin.pk)
        # 0.15+0.15+0.35+0.35 in floating point, as the paper's own perfect cells (0.99999...).
        self.assertEqual((cell["run_id"], figure(cell["overall"])), (run.pk, 1.0))

    def test_a_model_without_runs_is_not_ranked(self):
        make_model("newcomer")
        self.assertEqual(len(compute_board().rows), 11)


class LoaddataTests(TestCase):
    def test_the_fixture_also_loads_with_loaddata_on_an_empty_database(self):
        call_command("loaddata", str(DEFAULT_FIXTURE), verbosity=0)
        self.assertEqual(Run.objects.reported().count(), 121)

    def test_the_committed_fixture_matches_the_builder(self):
        from fixtures.build_published import build

        data_dir = Path(settings.SYSMOBENCH_DATA_DIR)
        if not (data_dir / "leaderboard").is_dir():
            pytest.skip(f"benchmark data not found at {data_dir}")
        self.assertEqual(json.loads(DEFAULT_FIXTURE.read_text()), build(data_dir))
