"""The board cache's generation: bumping it drops every cached board at once.

Its own small module so the models (which bump it when a run ends) need not import the pandas
aggregator that reads it.
"""

from __future__ import annotations

import time

from django.core.cache import cache

GENERATION_KEY = "board:generation"


def generation() -> int:
    """The current generation (part of every cached board's key); set on first use."""
    value: int | None = cache.get(GENERATION_KEY)
    if value is None:
        value = time.time_ns()
        cache.set(GENERATION_KEY, value, None)
    return value


def invalidate_board_cache() -> None:
    """Drop every cached board; `Run.finish`/`Run.fail` call this when a run ends."""
    cache.set(GENERATION_KEY, time.time_ns(), None)
