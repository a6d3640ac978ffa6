"""The AI models and agents whose specs are scored, and their named queries."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import models
from django.urls import reverse

if TYPE_CHECKING:
    from leaderboard.models.runs import Run


class ModelQuerySet(models.QuerySet["ModelUnderTest"]):
    def submittable_by(self, user: User | AnonymousUser) -> ModelQuerySet:
        """Models `user` may submit runs for: their own; staff also the staff-kept ones."""
        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.filter(models.Q(owner=user) | models.Q(owner__isnull=True))
        return self.filter(owner=user)

    def visible_to(self, user: User | AnonymousUser) -> ModelQuerySet:
        """Models `user` may see: staff-kept (published) ones, ones with a public run, and
        their own. Another account's model with only private runs stays hidden."""
        run = cast("type[Run]", self.model.runs.rel.related_model)
        has_public_run = models.Exists(run.objects.public().filter(model=models.OuterRef("pk")))
        visible = models.Q(owner__isnull=True) | models.Q(has_public_run)
        if user.is_authenticated:
            visible |= models.Q(owner=user)
        return self.filter(visible)


class ModelUnderTest(models.Model):
    """An AI model or agent whose specs are scored.

    Named ModelUnderTest so it never shadows django.db.models.Model.
    """

    class Kind(models.TextChoices):
        LLM = "llm", "LLM"
        AGENT = "agent", "Agent"

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=100)
    organisation = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.LLM)
    version = models.CharField(max_length=100, blank=True)
    link = models.URLField(blank=True)
    # Long names ("Claude, model version unrecorded, SysMoBench 2025 archive") wrap in narrow
    # columns; pages show this one and keep the full name in a title attribute.
    short_name = models.CharField(max_length=40, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="models_owned",
        help_text="The account that submits runs for this model; empty: kept by the maintainers "
        "(the published models).",
    )

    objects = ModelQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        verbose_name = "model"

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("model_detail", args=[self.slug])

    @property
    def display_name(self) -> str:
        return self.short_name or self.name

    def accepts_runs_from(self, user: User | AnonymousUser) -> bool:
        return ModelUnderTest.objects.submittable_by(user).filter(pk=self.pk).exists()
