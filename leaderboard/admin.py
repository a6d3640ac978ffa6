"""Admin for every model: maintainers verify, hide and fix entries here (DESIGN.md §1)."""

from django.contrib import admin

from leaderboard.board_cache import invalidate_board_cache
from leaderboard.models import (
    ActionResult,
    ApiToken,
    InvariantResult,
    ModelUnderTest,
    PhaseResult,
    Run,
    Task,
    TraceCorpus,
    TraceWindow,
    WindowResult,
)


class BoardInvalidatingAdmin(admin.ModelAdmin):
    """Edits made here change board figures, so they drop the cached board."""

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        invalidate_board_cache()

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        invalidate_board_cache()

    def delete_queryset(self, request, queryset):
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
    list_display = ["name", "slug", "organisation", "kind", "version"]
    list_filter = ["kind", "organisation"]
    search_fields = ["name", "slug", "organisation", "version"]
    prepopulated_fields = {"slug": ["name"]}


class PhaseResultInline(admin.TabularInline):
    model = PhaseResult
    extra = 0
    fields = ["phase", "status", "score", "duration_seconds", "started_at", "finished_at"]


@admin.register(Run)
class RunAdmin(BoardInvalidatingAdmin):
    list_display = ["id", "model", "task", "status", "provenance", "overall", "created_at"]
    list_filter = ["status", "provenance", "task", "model__kind", "model__organisation"]
    search_fields = ["model__name", "task__slug", "source", "failure_reason"]
    list_select_related = ["model", "task"]
    raw_id_fields = ["submitter"]
    date_hierarchy = "created_at"
    inlines = [PhaseResultInline]

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        invalidate_board_cache()


@admin.register(PhaseResult)
class PhaseResultAdmin(BoardInvalidatingAdmin):
    list_display = ["id", "run", "phase", "status", "score", "duration_seconds"]
    list_filter = ["phase", "status", "run__provenance", "run__task"]
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
    list_display = ["id", "phase_result", "action", "trace_id", "window_id", "actor", "verdict"]
    list_filter = ["verdict", "action"]
    search_fields = ["action", "trace_id", "window_id", "reason"]
    raw_id_fields = ["phase_result"]


@admin.register(InvariantResult)
class InvariantResultAdmin(admin.ModelAdmin):
    list_display = ["id", "phase_result", "name", "kind", "verdict"]
    list_filter = ["kind", "verdict"]
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
