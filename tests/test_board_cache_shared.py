"""Every process sees every other's edits: an edit made in another process that marks the board
(as the admin and Run.finish do) is seen by the next request here at once (the stored scope's
version moves, and a process keeps computed boards under that version), with Redis as the
shared cache of the pages or without an answering Redis."""

import os
import subprocess
import sys

import pytest
from django.core.cache import caches
from django.test import override_settings

from config.env import cache_from_url
from leaderboard.board.boards import get_board
from leaderboard.models import PhaseResult
from tests.base import make_model, make_run, make_task
from tests.rq_worker import REPO, claimed_redis_db, database_url

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]

FULL = {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0, "invariant": 1.0}
EDIT_IN_ANOTHER_PROCESS = """
import django
django.setup()
from leaderboard.models.marks import invalidate_board_cache
from leaderboard.models import PhaseResult
PhaseResult.objects.filter(phase="invariant").update(score=0.0)
invalidate_board_cache()
"""


def redis_cache(url: str) -> dict:
    """CACHES as the settings build them from CACHE_URL, so both processes use the same keys."""
    return {"default": cache_from_url(url)}


def other_process(cache_url: str) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CACHE_URL": cache_url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    subprocess.run(
        [sys.executable, "-c", EDIT_IN_ANOTHER_PROCESS], cwd=REPO, env=env, check=True,
        timeout=120,
    )  # fmt: skip


def test_an_edit_in_another_process_is_seen_at_once():
    with claimed_redis_db() as url, override_settings(CACHES=redis_cache(url)):
        model, task = make_model("model-a"), make_task("spin")
        make_run(model, task, FULL)
        assert get_board().rows.overall.iloc[0] == pytest.approx(1.0)
        # The edit changes no run's count, id or finish time: its mark, taken in by the next
        # board request here, moves the stored scope's version and so the cache key.
        other_process(url)
        assert PhaseResult.objects.get(phase="invariant").score == 0.0
        assert get_board().rows.overall.iloc[0] == pytest.approx(0.65)
        caches["default"].clear()


def test_a_redis_that_does_not_answer_means_no_cache_not_an_error():
    dead = redis_cache("redis://127.0.0.1:1/0")
    dead["default"]["OPTIONS"] = {"socket_connect_timeout": 0.2, "socket_timeout": 0.2}
    with override_settings(CACHES=dead):
        make_run(make_model("model-a"), make_task("spin"), FULL)
        assert get_board().rows.overall.iloc[0] == pytest.approx(1.0)
