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

CELL = "cell"
MEAN = "mean"


def _number(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def figure(value, kind: str = CELL) -> float | None:
    """The published 0..1 figure (3 decimals) of a raw score; None for no value."""
    value = _number(value)
    if value is None:
        return None
    if kind == MEAN:
        return round(round(value, 4), 3)
    if kind == CELL:
        return round(value, 3)
    raise ValueError(f"unknown figure kind {kind!r}")


def percent(value, kind: str = CELL) -> float | None:
    """The figure ×100 with one decimal (what pages and charts show); None for no value."""
    shown = figure(value, kind)
    return None if shown is None else round(shown * 100, 1)


def percent_text(value, kind: str = CELL) -> str:
    """A figure as the site prints it: ×100 with one decimal; '–' for no value."""
    shown = figure(value, kind)
    return "–" if shown is None else f"{shown * 100:.1f}"


def difference(a, b) -> float | None:
    """B − A from the unrounded values, as a 0..1 figure rounded once to 3 decimals."""
    a, b = _number(a), _number(b)
    if a is None or b is None:
        return None
    return round(b - a, 3)
