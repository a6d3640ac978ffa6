"""The one rounding rule for every figure the site publishes: pages, CSV, JSON and the API.

A figure is rounded the way SysMoBench's own pipeline rounded it, so that every number the paper
has is reproduced exactly:

- a **per-task figure** (a cell of the board, a run's overall or one of its phase scores) is
  rounded once to 3 decimals from the value as computed (detail_repaired.csv -> the paper's
  per-system columns: Gemini 3.1 Pro on redisraft is 0.7374999999999999 -> 0.737);
- a **mean over tasks** (a model's overall or phase mean) was first written to 4 decimals
  (aggregate_repaired.csv) and then rounded to 3 for the paper, so it is rounded in the same two
  steps (Gemini 3.1 Pro's overall 0.86547 -> 0.8655 -> 0.866, where one step would give 0.865).

Python's round() on the float (correctly rounded, not numpy's half-to-even on a scaled value) is
what the published tables used. Differences between two figures are taken from the unrounded
values and rounded once (`difference`), so a Δ never inherits two roundings.
"""

from __future__ import annotations

import math
from typing import SupportsFloat

CELL = "cell"
MEAN = "mean"

# A score as stored or computed (float, numpy or pandas float, None), or as a template passes it.
Score = SupportsFloat | str | None


def _number(value: Score) -> float | None:
    if value is None:
        return None
    number = float(value)
    return None if math.isnan(number) else number


def figure(value: Score, kind: str = CELL) -> float | None:
    """The published 0..1 figure (3 decimals) of a raw score; None for no value."""
    number = _number(value)
    if number is None:
        return None
    if kind == MEAN:
        return round(round(number, 4), 3)
    if kind == CELL:
        return round(number, 3)
    raise ValueError(f"unknown figure kind {kind!r}")


def percent(value: Score, kind: str = CELL) -> float | None:
    """The figure ×100 with one decimal (what pages and charts show); None for no value."""
    shown = figure(value, kind)
    return None if shown is None else round(shown * 100, 1)


def percent_text(value: Score, kind: str = CELL) -> str:
    """A figure as the site prints it: ×100 with one decimal; '–' for no value."""
    shown = figure(value, kind)
    return "–" if shown is None else f"{shown * 100:.1f}"


def difference(a: Score, b: Score) -> float | None:
    """B − A from the unrounded values, as a 0..1 figure rounded once to 3 decimals."""
    first, second = _number(a), _number(b)
    if first is None or second is None:
        return None
    return round(second - first, 3)
