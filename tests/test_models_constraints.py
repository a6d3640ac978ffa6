"""Database constraints of the data model hold on every backend (SQLite here, PostgreSQL in CI)."""

import pytest
from django.db import IntegrityError, transaction

from leaderboard.models import PhaseResult, Run, Task
from tests.base import WorldTestCase, make_phase_result, make_run, make_task


class ModelConstraintTests(WorldTestCase):
    def test_it_allows_one_result_per_phase_of_a_run(self):
        run = make_run(self.model_a, self.spin, phases={"syntax": 1.0})
        with pytest.raises(IntegrityError), transaction.atomic():
            make_phase_result(run, "syntax", 0.5)

    def test_it_rejects_a_phase_score_above_one(self):
        run = make_run(self.model_a, self.spin)
        with pytest.raises(IntegrityError), transaction.atomic():
            make_phase_result(run, "syntax", 1.5)

    def test_it_rejects_a_negative_phase_score(self):
        run = make_run(self.model_a, self.spin)
        with pytest.raises(IntegrityError), transaction.atomic():
            make_phase_result(run, "runtime", -0.1)

    def test_a_phase_without_score_is_allowed(self):
        run = make_run(self.model_a, self.spin)
        result = make_phase_result(run, "runtime", None, status=PhaseResult.Status.SKIPPED)
        self.assertIsNone(PhaseResult.objects.get(pk=result.pk).score)

    def test_a_reported_run_must_name_its_source(self):
        with pytest.raises(IntegrityError), transaction.atomic():
            make_run(self.model_a, self.spin, provenance=Run.Provenance.REPORTED, source="")

    def test_a_reported_run_with_a_source_is_stored(self):
        run = make_run(self.model_a, self.spin, provenance=Run.Provenance.REPORTED, source="paper")
        self.assertEqual(Run.objects.reported().get().pk, run.pk)

    def test_task_slugs_are_unique(self):
        with pytest.raises(IntegrityError), transaction.atomic():
            make_task("spin")
        self.assertEqual(Task.objects.filter(slug="spin").count(), 1)

    def test_a_second_claim_of_a_run_does_nothing(self):
        run = make_run(self.model_a, self.spin)
        self.assertTrue(run.claim())
        self.assertFalse(Run.objects.get(pk=run.pk).claim())
        run.refresh_from_db()
        self.assertEqual((run.status, run.attempts), (Run.Status.RUNNING, 1))
