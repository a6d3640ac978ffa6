"""Taking a submission: the per-account quotas and the one place a run is created and queued.

The form and the API both go through `submit`. The quota counts come from the runs themselves
(the database is the source of truth, nothing to drift), read and written inside one
transaction that first locks the submitter's user row: two uploads of one account wait for each
other, so neither can slip past a quota the other is about to fill. Other accounts never wait.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone

from leaderboard.models import Run
from leaderboard.scoring.queueing import enqueue_run
from leaderboard.shared.ratelimit import Limited
from leaderboard.submit.forms import SubmitForm

DAY = timedelta(days=1)
# A queued run ends in seconds to minutes; a minute is an honest first "try again".
QUEUE_RETRY_SECONDS = 60


def check_quota(user: User) -> None:
    """Raise Limited when `user` may not queue another run now."""
    mine = Run.objects.owned_by(user)
    queued_limit = settings.QUOTA_QUEUED_RUNS_PER_USER
    in_flight = mine.in_flight().count()
    if in_flight >= queued_limit:
        raise Limited(
            f"You have {in_flight} runs queued or being scored; the limit is {queued_limit} at "
            "once. Another upload is accepted as soon as one of them finishes.",
            QUEUE_RETRY_SECONDS,
        )
    daily_limit = settings.QUOTA_RUNS_PER_USER_PER_DAY
    since = timezone.now() - DAY
    today = list(
        mine.filter(created_at__gte=since)
        .order_by("-created_at")
        .values_list("created_at", flat=True)[:daily_limit]
    )
    if len(today) >= daily_limit:
        # The window is rolling: a slot frees up when the oldest of the last N runs turns a day old.
        frees_at = today[-1] + DAY
        seconds = max(1, math.ceil((frees_at - timezone.now()).total_seconds()))
        raise Limited(
            f"You have submitted {len(today)} runs in the last 24 hours; the limit is "
            f"{daily_limit} a day.",
            seconds,
        )
    check_worker_budget(user)


def worker_seconds(user: User, since: datetime) -> list[tuple[datetime, float]]:
    """(created_at, worker seconds) of `user`'s runs created since `since`, oldest first: the
    durations their phases recorded. A phase is charged when it ends: a run whose worker died
    is not charged for the time the reaper takes to notice."""
    runs = (
        Run.objects.owned_by(user)
        .filter(created_at__gte=since)
        .annotate(phases=Sum("phase_results__duration_seconds"))
        .order_by("created_at")
        .values_list("created_at", "phases")
    )
    return [(created, float(phases or 0.0)) for created, phases in runs]


def check_worker_budget(user: User) -> None:
    """Raise Limited when `user`'s runs took the day's worker time: a new run waits until the
    oldest of them turns a day old and gives its time back."""
    budget = settings.QUOTA_WORKER_SECONDS_PER_USER_PER_DAY
    spent = worker_seconds(user, timezone.now() - DAY)
    total = sum(seconds for _, seconds in spent)
    if total < budget:
        return
    over, frees_at = total - budget, spent[0][0] + DAY
    for created, seconds in spent:
        frees_at = created + DAY
        over -= seconds
        if over < 0:
            break
    wait = max(1, math.ceil((frees_at - timezone.now()).total_seconds()))
    raise Limited(
        f"Your runs took {total / 60:,.0f} minutes of scoring time in the last 24 hours; the "
        f"budget is {budget / 60:,.0f} minutes a day. A new run is accepted once older runs "
        "turn a day old.",
        wait,
    )


def quota_status(user: User) -> dict[str, Any]:
    """What the account page shows: runs in flight and in the last day, against the limits."""
    mine = Run.objects.owned_by(user)
    return {
        "in_flight": mine.in_flight().count(),
        "queued_limit": settings.QUOTA_QUEUED_RUNS_PER_USER,
        "today": mine.filter(created_at__gte=timezone.now() - DAY).count(),
        "daily_limit": settings.QUOTA_RUNS_PER_USER_PER_DAY,
        "worker_minutes": round(
            sum(s for _, s in worker_seconds(user, timezone.now() - DAY)) / 60, 1
        ),
        "worker_budget_minutes": round(settings.QUOTA_WORKER_SECONDS_PER_USER_PER_DAY / 60, 1),
    }


def submit(form: SubmitForm, user: User) -> Run | None:
    """Create and queue the run of a valid SubmitForm for `user`, within the quotas.

    Raises Limited (nothing saved) when a quota is full. Returns None, with the error added to
    the form, when another account took the new model's name a moment earlier.
    """
    try:
        with transaction.atomic():
            # select_for_update is a no-op on SQLite, whose IMMEDIATE transactions (config/env.py)
            # serialise the whole block instead.
            get_user_model().objects.select_for_update().filter(pk=user.pk).first()
            check_quota(user)
            run = form.save(submitter=user)
            enqueue_run(run)
    except IntegrityError:
        # The only unique field a submission writes is the new model's slug.
        message = (
            "A model of this name was created a moment ago by another account: choose another name."
        )
        form.add_error("new_model_name", message)
        return None
    return run
