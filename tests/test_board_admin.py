"""Every model has a working admin list (with its filters and search) and change page."""

from django.contrib.auth import get_user_model
from django.core import checks
from django.urls import reverse

from leaderboard.models import PhaseResult
from tests.base import WorldTestCase, make_run

ADMIN_MODELS = [
    "task",
    "modelundertest",
    "run",
    "phaseresult",
    "actionresult",
    "windowresult",
    "invariantresult",
    "tracecorpus",
    "tracewindow",
    "apitoken",
]


class AdminPageTests(WorldTestCase):
    def setUp(self):
        admin = get_user_model().objects.create_superuser("admin", "a@example.org", "pw")
        self.client.force_login(admin)
        self.run = make_run(self.model_a, self.spin, {"syntax": 1.0, "runtime": 0.5})

    def test_the_admin_configuration_passes_django_checks(self):
        errors = [e for e in checks.run_checks(tags=[checks.Tags.admin]) if e.is_serious()]
        self.assertEqual(errors, [])

    def test_every_model_has_a_searchable_changelist(self):
        for name in ADMIN_MODELS:
            with self.subTest(model=name):
                url = reverse(f"admin:leaderboard_{name}_changelist")
                self.assertEqual(self.client.get(url, {"q": "spin"}).status_code, 200)

    def test_the_run_change_page_shows_its_phase_results_inline(self):
        response = self.client.get(reverse("admin:leaderboard_run_change", args=[self.run.pk]))
        self.assertContains(response, "Phase results")
        self.assertEqual(response.context["inline_admin_formsets"][0].formset.queryset.count(), 2)

    def test_the_run_list_filters_by_provenance(self):
        url = reverse("admin:leaderboard_run_changelist")
        response = self.client.get(url, {"provenance__exact": "reported"})
        self.assertEqual(response.context["cl"].result_count, 0)
        response = self.client.get(url, {"provenance__exact": "verified"})
        self.assertEqual(response.context["cl"].result_count, 1)

    def test_editing_a_phase_score_in_the_admin_updates_the_board(self):
        from leaderboard.board.boards import get_board

        before = get_board().rows.overall.iloc[0]
        result = PhaseResult.objects.get(run=self.run, phase="runtime")
        url = reverse("admin:leaderboard_phaseresult_change", args=[result.pk])
        self.client.post(
            url,
            {
                "run": self.run.pk,
                "phase": "runtime",
                "status": "ran",
                "score": "1.0",
                "details": "{}",
            },
        )
        self.assertAlmostEqual(get_board().rows.overall.iloc[0] - before, 0.15 * 0.5 / 2)
