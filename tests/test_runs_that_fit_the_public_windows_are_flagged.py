"""A run whose public P3 exceeds its held-out P3 by more than the margin is flagged
(docs/decisions/0012-held-out-traces.md): on the run page, in the review admin (a filter and a
column) and in the run JSON, from a typed field of the stored P3 details, never from a message."""

from django.contrib.auth import get_user_model
from django.urls import reverse

from evaluation.phases import heldout
from evaluation.results import PhaseOutcome
from tests.base import WorldTestCase, make_phase_result, make_run


def p3_details(public: float, hidden: float) -> dict:
    """The details the pipeline stores for a P3 scored on both sets (`heldout.combine`)."""

    def outcome(rate: float) -> PhaseOutcome:
        row = {"passed": int(rate * 10), "total": 10, "failed": 10 - int(rate * 10)}
        row |= {"undecided": 0, "errors": 0, "pass_rate": rate, "zero_tolerance": int(rate == 1)}
        details = {"per_action": {"AcquireLock": row}}
        return PhaseOutcome("conformance", "ran", float(rate == 1), details=details)

    combined = heldout.combine(outcome(public), outcome(hidden), "a" * 64, "b" * 64)
    return dict(combined.details)


class FlagTests(WorldTestCase):
    def make(self, public: float, hidden: float):
        run = make_run(self.model_a, self.spin, {"syntax": 1.0, "runtime": 1.0})
        make_phase_result(run, "conformance", 0.0, details=p3_details(public, hidden))
        return run

    def test_the_run_page_and_json_say_it_fits_the_public_windows(self):
        flagged, honest = self.make(1.0, 0.1), self.make(1.0, 0.95)
        page = self.client.get(reverse("run_detail", args=[flagged.pk])).content.decode()
        self.assertIn("Fits the public windows, not the system", page)
        self.assertIn('id="heldout-p3"', page)
        other = self.client.get(reverse("run_detail", args=[honest.pk])).content.decode()
        self.assertIn('id="heldout-p3"', other)
        self.assertNotIn("Fits the public windows, not the system", other)
        data = self.client.get(reverse("run_export_json", args=[flagged.pk])).json()
        self.assertIs(data["conformance"]["fits_public_only"], True)
        self.assertEqual(data["conformance"]["official"], "heldout")
        self.assertEqual(data["conformance"]["heldout"]["pooled_rate"], 0.1)
        honest_data = self.client.get(reverse("run_export_json", args=[honest.pk])).json()
        self.assertIs(honest_data["conformance"]["fits_public_only"], False)

    def test_the_review_admin_filters_and_marks_flagged_runs(self):
        flagged, honest = self.make(1.0, 0.1), self.make(1.0, 0.95)
        admin = get_user_model().objects.create_superuser("admin", "a@example.org", "pw")
        self.client.force_login(admin)
        url = reverse("admin:leaderboard_run_changelist")
        shown = self.client.get(url, {"fits_public": "yes"}).context["cl"].result_list
        self.assertEqual([r.pk for r in shown], [flagged.pk])
        shown = self.client.get(url, {"fits_public": "no"}).context["cl"].result_list
        self.assertNotIn(flagged.pk, [r.pk for r in shown])
        self.assertIn(honest.pk, [r.pk for r in shown])

    def test_a_run_scored_without_a_held_out_set_has_no_flag(self):
        run = make_run(self.model_a, self.spin, {"syntax": 1.0})
        details = dict(heldout.combine(PhaseOutcome("conformance", "ran", 1.0), None, "").details)
        make_phase_result(run, "conformance", 1.0, details=details)
        data = self.client.get(reverse("run_export_json", args=[run.pk])).json()
        self.assertEqual(data["conformance"]["official"], "public")
        self.assertIsNone(data["conformance"]["heldout"])
        self.assertIs(data["conformance"]["fits_public_only"], False)
