"""Paired tests for two specs checked on the same things: exact McNemar on discordant pairs.

Two runs of one task are checked on the same trace windows, so the fair question is paired: of
the windows where the verdicts differ, does one spec win more often than chance? Only the
discordant pairs carry information: b (A passes, B does not) and c (B passes, A does not).
Under "no difference" each is a fair coin flip, so X ~ Bin(b + c, 1/2) and the exact two-sided
p = min(1, 2·P(X ≤ min(b, c))).

With fewer than 6 discordant pairs even the most lopsided split (0 against 5) gives
p = 2/32 = 0.0625, so no outcome could reach the 5% level: the page says "too few to tell"
instead of printing a p-value that reads like evidence of no difference.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

# The least number of discordant pairs for which some split reaches p < 0.05 (0 v 6: 0.03125).
FEWEST_DISCORDANT = 6
LEVEL = 0.05


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for b and c discordant pairs (1.0 when there are none)."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts cannot be negative")
    n, low = b + c, min(b, c)
    if n == 0:
        return 1.0
    tail: float = sum(math.comb(n, i) for i in range(low + 1)) / 2**n
    return min(1.0, 2 * tail)


def verdict(b: int, c: int, unit: str = "windows") -> dict[str, Any]:
    """The test and what a reader may conclude from it, in words."""
    n = b + c
    p = mcnemar_exact(b, c) if n else None
    if n < FEWEST_DISCORDANT:
        caution = (
            f"too few discordant {unit} to tell ({n}; at least {FEWEST_DISCORDANT} are needed "
            "before any split could be significant)"
        )
        reading = ""
    else:
        caution = ""
        if p is not None and p < LEVEL:
            reading = f"{'A' if b > c else 'B'} is better (p < {LEVEL:g})"
        else:
            reading = f"no clear winner at the {LEVEL:.0%} level"
    return {"b": b, "c": c, "discordant": n, "p_value": p, "caution": caution, "reading": reading}


def window_pairs(
    mine: dict[tuple[str, str], tuple[int, str, str]],
    theirs: dict[tuple[str, str], tuple[int, str, str]],
) -> list[dict[str, Any]]:
    """Per action, over the windows both runs checked ((trace, window) -> (pk, action, verdict)):
    how many, how many A alone passes (b) and B alone passes (c), and the test. A window passes
    only with the verdict "pass", as in the score (undecided and error count as not passed)."""
    counts: dict[str, list[int]] = {}
    for key in set(mine) & set(theirs):
        _, action, verdict_a = mine[key]
        _, _, verdict_b = theirs[key]
        row = counts.setdefault(action, [0, 0, 0])
        row[0] += 1
        a_pass, b_pass = verdict_a == "pass", verdict_b == "pass"
        row[1] += a_pass and not b_pass
        row[2] += b_pass and not a_pass
    return [
        {"action": action, "windows": both, **verdict(b, c)}
        for action, (both, b, c) in sorted(counts.items())
    ]


def pooled(rows: Iterable[dict[str, Any]], unit: str = "windows") -> dict[str, Any]:
    """All actions' discordant windows together (each window is one pair, whatever its action)."""
    rows = list(rows)
    b, c = sum(r["b"] for r in rows), sum(r["c"] for r in rows)
    return {"windows": sum(r["windows"] for r in rows), **verdict(b, c, unit)}
