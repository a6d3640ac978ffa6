"""The official weights and the one rule that turns phase scores into a cell score.

A leaf module (it imports nothing from the project), so the scorer (`pipeline`), the board
(`leaderboard.board.aggregate`) and the models (`leaderboard.models`) share one definition without
importing each other. Rules (docs/BENCHMARK_RULES.md §1): a phase with no result, without a
score (skipped, error) or with the status `timeout` of runs stored before scorer 2.1 counts 0,
and so does an `n/a` phase (a task without traces has no P3 to earn): no renormalising over a
missing phase, so a task without traces cannot give a high overall from P1, P2 and P4 alone
(docs/decisions/0016-cell-score-rule.md). Reported runs keep the published formula, which counted a
missing phase 0 too.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Final, SupportsFloat

# A weight as given: a number, or its text (the board's `?weights=` parameter).
Weight = SupportsFloat | str

PHASES = ("syntax", "runtime", "conformance", "invariant")
PHASE_WEIGHTS = {"syntax": 0.15, "runtime": 0.15, "conformance": 0.35, "invariant": 0.35}
OFFICIAL_WEIGHTS = tuple(PHASE_WEIGHTS[phase] for phase in PHASES)
NOT_APPLICABLE: Final = "n/a"
TIMEOUT: Final = "timeout"
# Scorers since 2.1 end no phase in `timeout`: verdicts are bounded by work, and a safety-net
# time limit is an infrastructure failure (no score at all;
# docs/decisions/0004-work-bounds-not-time.md).
# Runs stored by earlier scorers keep the rule they were scored under on the board: a phase
# that ended with status `timeout` counts 0, whatever it decided before time ran out.
# The rule the methodology page states (the site's words for the paragraph above).
TIMEOUT_RULE = (
    "a check that reaches its safety-net time limit gives no score at all: the run could not be "
    "scored, it is never a 0 and never a pass"
)


def normalise_weights(weights: Iterable[Weight]) -> tuple[float, float, float, float]:
    """Four non-negative weights scaled to sum 1; ValueError for anything else."""
    given = tuple(weights)
    try:
        # The board scores every run under the same weights: once per weights, not per run.
        return _normalised(given)
    except TypeError:  # an unhashable entry; the check below says why it is not a weight
        return _normalise(given)


@lru_cache(maxsize=64)
def _normalised(weights: tuple[Weight, ...]) -> tuple[float, float, float, float]:
    return _normalise(weights)


def _normalise(weights: tuple[Weight, ...]) -> tuple[float, float, float, float]:
    for w in weights:
        try:
            float(w)
        except (TypeError, ValueError):
            raise ValueError(f"“{w}” is not a number; weights are four numbers") from None
    values = tuple(float(w) for w in weights)
    total = sum(values)
    # inf, nan and sums that overflow (1e308 + 1e308) would turn every score into nan.
    finite = all(math.isfinite(w) for w in values) and math.isfinite(total)
    if len(values) != len(PHASES) or not finite or any(w < 0 for w in values) or total <= 0:
        raise ValueError("weights must be four non-negative numbers with a positive, finite sum")
    return tuple(round(w / total, 6) for w in values)  # type: ignore[return-value]


def cell_score(
    scores: Mapping[str, float | None],
    statuses: Mapping[str, str],
    provenance: str,
    weights: Iterable[Weight] = OFFICIAL_WEIGHTS,
) -> float:
    """The weighted score of one run (see the module docstring for missing and N/A phases).
    `provenance` no longer changes the rule (verified and reported runs both count a missing
    phase 0 since scorer 3.0.0; docs/decisions/0016-cell-score-rule.md); callers still name it, and
    it stays for them."""
    del provenance
    normalised = dict(zip(PHASES, normalise_weights(weights), strict=True))
    # The weights already sum to 1; dividing by their float sum (0.9999999999999999) would move
    # the paper's 0.7374999999999999 to 0.7375, whose published rounding is 0.738, not 0.737.
    return sum(normalised[p] * _counted(scores, statuses, p) for p in PHASES)


def _counted(scores: Mapping[str, float | None], statuses: Mapping[str, str], phase: str) -> float:
    if statuses.get(phase) in (TIMEOUT, NOT_APPLICABLE):
        return 0.0
    return scores.get(phase) or 0.0
