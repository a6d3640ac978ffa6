"""Admin for every model: maintainers verify, hide and fix entries here (README, "Accounts,
review and quotas")."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Exists, Model, OuterRef, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.text import Truncator

from leaderboard.models import (
    ActionResult,
    ApiToken,
    InvariantResult,
    ModelUnderTest,
    PhaseResult,
    Release,
    Rescore,
    ReviewError,
    Run,
    RunEvent,
    Task,
    TraceCorpus,
    TraceWindow,
    WindowResult,
)
from leaderboard.models.marks import invalidate_board_cache
from leaderboard.shared.requests import AuthenticatedRequest
from leaderboard.shared.rounding import figure


class BoardInvalidatingAdmin(admin.ModelAdmin):
    """Edits made here change board figures, so they drop the cached board."""

    def save_model(self, request: HttpRequest, obj: Model, form: Any, change: Any) -> None:
        super().save_model(request, obj, form, change)
        invalidate_board_cache()

    def delete_model(self, request: HttpRequest, obj: Model) -> None:
        super().delete_model(request, obj)
        invalidate_board_cache()

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        super().delete_queryset(request, queryset)
        invalidate_board_cache()


@admin.register(Task)
class TaskAdmin(BoardInvalidatingAdmin):
    list_display = ["position", "slug", "name", "kind", "language", "module_name"]
    list_display_links = ["slug"]
    list_filter = ["kind", "language"]
    search_fields = ["slug", "name", "system"]
    ordering = ["position"]


@admin.register(ModelUnderTest)
class ModelUnderTestAdmin(BoardInvalidatingAdmin):
    list_display = ["name", "slug", "organisation", "kind", "version", "owner"]
    list_filter = ["kind", "organisation"]
    search_fields = ["name", "slug", "organisation", "version", "owner__username"]
    # Handing a model over to its makers' account is done here: set the owner.
    raw_id_fields = ["owner"]
    prepopulated_fields = {"slug": ["name"]}


class PhaseResultInline(admin.TabularInline):
    model = PhaseResult
    extra = 0
    fields = ["phase", "status", "score", "duration_seconds", "started_at", "finished_at"]


class RunEventInline(admin.TabularInline):
    """The run's history as the job and the reaper recorded it: read-only, it is what happened."""

    model = RunEvent
    extra = 0
    fields = readonly_fields = ("at", "attempt", "event", "reason")
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReviewForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        required=False,
        help_text="Shown to the submitter on the run page. Required to reject, optional to "
        "approve.",
    )


class NearDuplicateFilter(admin.SimpleListFilter):
    """The review queue's filter for runs flagged as near-duplicates (`scoring/likeness.py`)."""

    title = "near-duplicate"
    parameter_name = "near_duplicate"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Flagged"), ("no", "Not flagged")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Run]) -> QuerySet[Run]:
        if self.value() == "yes":
            return queryset.filter(similar_to__isnull=False)
        if self.value() == "no":
            return queryset.filter(similar_to__isnull=True)
        return queryset


def fits_public_only() -> Exists:
    """The run's P3 says it fits the public windows, not the system
    (docs/decisions/0012-held-out-traces.md): a typed field of the stored P3 details
    (`fits_public.flagged`), not a message."""
    return Exists(
        PhaseResult.objects.filter(
            run=OuterRef("pk"), phase="conformance", details__fits_public__flagged=True
        )
    )


class FitsPublicFilter(admin.SimpleListFilter):
    title = "fits the public windows, not the system"
    parameter_name = "fits_public"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "flagged"), ("no", "not flagged")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "yes":
            return queryset.filter(fits_public=True)
        if self.value() == "no":
            return queryset.filter(fits_public=False)
        return queryset


@admin.register(Run)
class RunAdmin(BoardInvalidatingAdmin):
    # Narrow enough for 1280 px: the model's name shortened, provenance left to the filter.
    list_display = [
        "id",
        "model_short",
        "task",
        "status",
        "review",
        "submitter",
        "overall_figure",
        "near_duplicate",
        "fits_public_flag",
        "created_at",
    ]
    list_filter = [
        "review",
        NearDuplicateFilter,
        FitsPublicFilter,
        "status",
        "provenance",
        "task",
        "model__kind",
        "model__organisation",
    ]
    search_fields = ["model__name", "task__slug", "source", "failure_reason", "submitter__username"]
    list_select_related = ["model", "task", "submitter"]
    raw_id_fields = ["submitter"]
    # The review goes through Run.approve/reject (the actions below), never a hand edit.
    readonly_fields = [
        "review",
        "published_at",
        "reviewed_at",
        "reviewed_by",
        "review_reason",
        "similar_to",
        "shape_digest",
        "shape_sketch",
    ]
    date_hierarchy = "created_at"
    inlines = [PhaseResultInline, RunEventInline]
    actions = ["approve_runs", "reject_runs"]

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: Any) -> None:
        super().save_formset(request, form, formset, change)
        invalidate_board_cache()

    def get_queryset(self, request: HttpRequest) -> QuerySet[Run]:
        runs: QuerySet[Run] = super().get_queryset(request)
        return runs.annotate(fits_public=fits_public_only())

    @admin.display(description="fits public only", boolean=True, ordering="fits_public")
    def fits_public_flag(self, run: Run) -> bool:
        return bool(getattr(run, "fits_public", False))

    @admin.display(description="model", ordering="model__name")
    def model_short(self, run: Run) -> str:
        return Truncator(run.model.name).chars(32)

    @admin.display(description="near-duplicate of")
    def near_duplicate(self, run: Run) -> str:
        return run.near_duplicate_of

    @admin.display(description="overall", ordering="overall")
    def overall_figure(self, run: Run) -> float | None:
        # The published figure (3 decimals), not the float's 0.6499999999999999.
        return figure(run.overall)

    @admin.action(description="Approve the selected published runs for the board")
    def approve_runs(
        self, request: AuthenticatedRequest, queryset: QuerySet[Run]
    ) -> TemplateResponse | None:
        return self._review(request, queryset, "approve")

    @admin.action(description="Reject the selected runs (with a reason for the submitter)")
    def reject_runs(
        self, request: AuthenticatedRequest, queryset: QuerySet[Run]
    ) -> TemplateResponse | None:
        return self._review(request, queryset, "reject")

    def _review(
        self, request: AuthenticatedRequest, queryset: QuerySet[Run], verdict: str
    ) -> TemplateResponse | None:
        """Ask for the reason on an intermediate page, then apply the verdict run by run."""
        form = ReviewForm(request.POST if "apply" in request.POST else None)
        if not form.is_bound or not form.is_valid() or not self._reason_ok(form, verdict):
            context = {
                **self.admin_site.each_context(request),
                "title": f"{verdict.capitalize()} runs",
                "verdict": verdict,
                "runs": queryset,
                "form": form,
                "action": request.POST.get("action"),
                "opts": self.model._meta,
            }
            return TemplateResponse(request, "admin/leaderboard/run/review.html", context)
        done: list[str] = []
        refused: list[str] = []
        for run in queryset:
            try:
                if verdict == "approve":
                    run.approve(request.user, form.cleaned_data["reason"])
                else:
                    run.reject(request.user, form.cleaned_data["reason"])
                done.append(str(run.pk))
            except ReviewError as error:
                refused.append(f"run {run.pk}: {error}")
        if done:
            self.message_user(request, f"{verdict.capitalize()}d runs {', '.join(done)}.")
        for message in refused:
            self.message_user(request, message, messages.WARNING)
        return None

    @staticmethod
    def _reason_ok(form: ReviewForm, verdict: str) -> bool:
        if verdict == "reject" and not form.cleaned_data["reason"].strip():
            form.add_error("reason", "Give the submitter a reason for the rejection.")
            return False
        return True


@admin.register(PhaseResult)
class PhaseResultAdmin(BoardInvalidatingAdmin):
    list_display = ["id", "run", "phase", "status", "score_figure", "duration_seconds"]
    list_filter = ["phase", "status", "run__provenance", "run__task"]

    @admin.display(description="score", ordering="score")
    def score_figure(self, result: PhaseResult) -> float | None:
        return figure(result.score)

    search_fields = ["run__model__name", "run__task__slug"]
    raw_id_fields = ["run"]


@admin.register(ActionResult)
class ActionResultAdmin(admin.ModelAdmin):
    list_display = ["id", "phase_result", "action", "passed", "total"]
    list_filter = ["phase_result__phase"]
    search_fields = ["action"]
    raw_id_fields = ["phase_result"]


@admin.register(WindowResult)
class WindowResultAdmin(admin.ModelAdmin):
    list_display = [
        "id", "phase_result", "action", "trace_id", "window_id", "actor", "verdict", "credit"
    ]  # fmt: skip
    list_filter = ["verdict", "credit", "action"]
    search_fields = ["action", "trace_id", "window_id", "reason"]
    raw_id_fields = ["phase_result"]


@admin.register(InvariantResult)
class InvariantResultAdmin(admin.ModelAdmin):
    list_display = ["id", "phase_result", "name", "kind", "verdict", "credit"]
    list_filter = ["kind", "verdict", "credit"]
    search_fields = ["name", "reason"]
    raw_id_fields = ["phase_result"]


@admin.register(TraceCorpus)
class TraceCorpusAdmin(admin.ModelAdmin):
    list_display = ["task", "version", "window_count", "imported_at"]
    list_filter = ["task"]
    search_fields = ["version", "source"]


@admin.register(TraceWindow)
class TraceWindowAdmin(admin.ModelAdmin):
    list_display = ["window_id", "corpus", "trace_id", "action", "actor"]
    list_filter = ["action", "corpus__task"]
    search_fields = ["window_id", "trace_id", "action"]
    raw_id_fields = ["corpus"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "created_at", "last_used_at"]
    search_fields = ["name", "user__username"]
    raw_id_fields = ["user"]
    readonly_fields = ["token_hash"]


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    list_display = ["name", "identity", "created_at", "approved_at"]
    readonly_fields = ["identity", "components", "created_at", "approved_at"]
    actions = ["approve_releases"]

    @admin.action(description="Make the selected release the board's default (after its diff)")
    def approve_releases(self, request: HttpRequest, queryset: QuerySet[Release]) -> None:
        for release in queryset:
            if release.approve():
                self.message_user(request, f"{release.name} is approved.", messages.SUCCESS)
            else:
                self.message_user(request, f"{release.name} was approved already.", messages.INFO)


@admin.register(Rescore)
class RescoreAdmin(admin.ModelAdmin):
    list_display = ["run", "release", "state", "new_run", "finished_at"]
    list_filter = ["release", "state"]
    raw_id_fields = ["run", "new_run"]
