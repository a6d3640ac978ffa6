"""The fidelity corpus's model-written specs load as verified archive entries, labelled with
exactly what is known, once. Scoring them is the job's (tested with the scorer); here the queue
is the edge."""

import shutil
import tempfile
from io import StringIO
from pathlib import Path
from unittest import mock

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import TestCase

from leaderboard.management.commands.load_fidelity import (
    adapter_path,
    archived_specs,
    default_adapters,
)
from leaderboard.management.commands.load_published import load_published
from leaderboard.models import ModelUnderTest, Run

ROOT = Path(settings.SYSMOBENCH_DATA_DIR) / "fidelity" / "spec"


class LoadFidelityTest(TestCase):
    @classmethod
    def setUpTestData(cls):
        if not ROOT.is_dir():
            pytest.skip(f"fidelity corpus not found at {ROOT}")
        load_published()

    def load(self):
        queued = []
        target = "leaderboard.management.commands.load_fidelity.enqueue_run"
        with mock.patch(target, side_effect=queued.append):
            call_command("load_fidelity", "--queue", stdout=StringIO())
        return queued

    def test_it_finds_the_model_written_specs_of_three_tasks(self):
        found = {(s.task, s.variant) for s in archived_specs(ROOT)}
        on_disk = {
            (p.parent.relative_to(ROOT).parts[0], str(Path(*p.parent.relative_to(ROOT).parts[1:])))
            for p in ROOT.glob("*/**/*.tla")
        }
        self.assertEqual(found, on_disk)
        self.assertEqual({task for task, _ in found}, {"dqueue", "locksvc", "raftkvs"})

    def test_each_spec_becomes_a_verified_run_of_a_plainly_labelled_model_once(self):
        queued = self.load()
        self.assertEqual(len(queued), len(archived_specs(ROOT)))
        claude = ModelUnderTest.objects.get(slug="claude-2025-archive")
        self.assertEqual(claude.name, "Claude, model version unrecorded, SysMoBench 2025 archive")
        runs = Run.objects.filter(model__slug__endswith="-2025-archive")
        self.assertEqual(set(runs.values_list("provenance", flat=True)), {"verified"})
        # Loaded by the operator: on the board once scored, like the demo's sample run.
        self.assertEqual(set(runs.values_list("review", flat=True)), {Run.Review.APPROVED})
        self.assertTrue(all(r.spec_text.startswith("---- MODULE") for r in runs))
        self.assertEqual(self.load(), [])

    def test_without_adapters_the_project_s_own_are_used_and_stored(self):
        self.load()
        for spec in archived_specs(ROOT):
            run = Run.objects.get(model__slug=f"{spec.author}-2025-archive", task__slug=spec.task,
                                  spec_text=spec.path.read_text())  # fmt: skip
            expected = adapter_path(default_adapters(), spec).read_text()
            self.assertTrue(expected.strip())
            self.assertEqual(run.adapter_text, expected)

    def test_a_spec_without_its_adapter_is_refused_and_nothing_loads(self):
        with tempfile.TemporaryDirectory() as folder:
            partial = Path(folder)
            shutil.copytree(default_adapters() / "dqueue", partial / "dqueue")
            with self.assertRaises(CommandError) as refused:
                call_command("load_fidelity", "--queue", "--adapters", str(partial),
                             stdout=StringIO())  # fmt: skip
        self.assertIn("no adapter for", str(refused.exception))
        self.assertIn("locksvc", str(refused.exception))
        self.assertFalse(Run.objects.filter(model__slug__endswith="-2025-archive").exists())
