"""An Atom feed of approved releases and newly verified results (`/feed.atom`).

A verified result enters the feed when it reaches the board: a finished verified run approved
by a maintainer (dated by the review, or by its scoring for a bulk load approved as it was
queued). Releases enter when approved. Reported figures are not news and are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.syndication.views import Feed
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from leaderboard.models import Release, Run
from leaderboard.shared.rounding import percent_text

ITEMS = 50


@dataclass(frozen=True)
class Entry:
    title: str
    link: str
    description: str
    when: datetime


def _releases() -> list[Entry]:
    approved = Release.objects.filter(approved_at__isnull=False).order_by("-approved_at")
    return [
        Entry(
            title=f"Release {r.name} approved",
            link=r.get_absolute_url(),
            description=r.changelog or "No changelog given.",
            when=r.approved_at,
        )
        for r in approved[:ITEMS]
        if r.approved_at is not None
    ]


def _results() -> list[Entry]:
    runs = (
        Run.objects.countable()
        .verified()
        .annotate(on_board_at=Coalesce("reviewed_at", "finished_at", "created_at"))
        .select_related("model", "task")
        .order_by("-on_board_at", "-pk")[:ITEMS]
    )
    return [
        Entry(
            title=f"{run.model.name} on {run.task.slug}: {percent_text(run.overall)} (verified)",
            link=run.get_absolute_url(),
            description=f"Run {run.pk} of {run.model.name} ({run.model.organisation}) on "
            f"{run.task.name}, scored here and approved for the board: overall "
            f"{percent_text(run.overall)} / 100.",
            when=run.on_board_at,  # the annotation above
        )
        for run in runs
    ]


class NewsFeed(Feed):
    feed_type = Atom1Feed
    title = "SysMoBench Leaderboard"
    subtitle = "Approved releases and newly verified results."

    def link(self) -> str:
        return reverse("leaderboard")

    def feed_url(self) -> str:
        return reverse("feed")

    def items(self) -> list[Entry]:
        return sorted(_releases() + _results(), key=lambda e: e.when, reverse=True)[:ITEMS]

    def item_title(self, item: Entry) -> str:
        return item.title

    def item_description(self, item: Entry) -> str:
        return item.description

    def item_link(self, item: Entry) -> str:
        return item.link

    def item_pubdate(self, item: Entry) -> datetime:
        return item.when

    def item_updateddate(self, item: Entry) -> datetime:
        return item.when


feed = NewsFeed()
