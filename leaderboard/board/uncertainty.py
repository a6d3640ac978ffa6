"""95% intervals for the board's cells and overalls, and the rank ranges they imply.

Definitions (the methodology page states the same):

- **A cell's interval** is a percentile bootstrap with RESAMPLES resamples. With n ≥ 2 approved
  verified runs, a resample draws n of the cell's runs with replacement and applies the cell's
  policy to them (mean, or best); `ci_basis` is "runs". With one run (and under the "first"
  policy, where the cell is one run), a resample draws, with replacement, the run's trace windows
  within each target action and its invariants, and recomputes P3 (an action counts 1 only if
  every drawn window passes and the action was not refused for specificity) and P4 (the share of
  drawn invariants that hold and earned their credit); P1 and P2 are one verdict each and stay
  as scored. `ci_basis` is then "units". A run with no windows or invariants to draw, and a
  reported cell (its figures are all the source gives), has no interval (null).
- **A model's overall interval** bootstraps the overall itself: every resample takes one
  resample of each of the model's cells (a cell without an interval keeps its value, a task
  without a run counts 0) and averages them over all tasks as the overall is averaged
  (`overall_ci_basis` "cells"). A model none of whose cells has an interval (a reported model:
  its sources publish no runs, windows or invariants) is bootstrapped over the benchmark's tasks
  instead: a resample draws the board's tasks with replacement and averages the model's cells on
  them (a task without a run counts 0), so the interval says how much the overall rests on which
  tasks were chosen (`overall_ci_basis` "tasks"; with fewer than two tasks there is none).
- The interval is [2.5th, 97.5th] percentile of the resampled values (numpy's linear
  interpolation). Each cell draws from its own generator, seeded by (SEED, model id, task id),
  so a cell's interval does not move when other runs arrive.
- **Rank range** [best, worst] of model i, with interval [lo_i, hi_i] (the point [x_i, x_i] when
  it has none): best = 1 + #{j : lo_j > hi_i} (models surely ahead of it), worst = 1 + #{j ≠ i :
  hi_j ≥ lo_i} (models not surely behind it). Two rows tie when their ranges overlap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

RESAMPLES = 2000
SEED = 22
CONFIDENCE = 0.95
_PERCENTILES = (100 * (1 - CONFIDENCE) / 2, 100 * (1 + CONFIDENCE) / 2)

RUNS, UNITS = "runs", "units"
CELLS, TASKS = "cells", "tasks"


@dataclass
class RunUnits:
    """What a run's units-bootstrap draws: per scored action its window verdicts (True = pass)
    and whether specificity refused it; the credited verdict of each invariant."""

    actions: list[tuple[list[bool], bool]] = field(default_factory=list)
    invariants: list[bool] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.actions or self.invariants)


def generator(model_id: int, task_id: int) -> np.random.Generator:
    return np.random.default_rng([SEED, int(model_id), int(task_id)])


def interval(samples: np.ndarray | None) -> tuple[float, float] | None:
    if samples is None:
        return None
    low, high = np.percentile(samples, _PERCENTILES)
    return float(low), float(high)


def intervals(
    samples: Sequence[np.ndarray | None],
) -> list[tuple[float, float] | None]:
    """`interval` of each, the percentiles of all taken in one call (a board has thousands of
    cells; numpy's per-row percentiles are the same numbers as one call per row)."""
    present = [(i, drawn) for i, drawn in enumerate(samples) if drawn is not None]
    found: list[tuple[float, float] | None] = [None] * len(samples)
    if present:
        stacked = np.stack([drawn for _, drawn in present])
        low, high = np.percentile(stacked, _PERCENTILES, axis=1)
        for (i, _), lo, hi in zip(present, low, high, strict=True):
            found[i] = (float(lo), float(hi))
    return found


def over_runs(values: Sequence[float], policy: str, rng: np.random.Generator) -> np.ndarray:
    """RESAMPLES values of the cell: n runs drawn with replacement, reduced by the policy."""
    scores = np.asarray(values, dtype=float)
    drawn = scores[rng.integers(0, len(scores), size=(RESAMPLES, len(scores)))]
    reduced: np.ndarray = drawn.max(axis=1) if policy == "best" else drawn.mean(axis=1)
    return reduced


def conformance_draws(units: RunUnits, rng: np.random.Generator) -> np.ndarray | None:
    """P3 under RESAMPLES draws of each action's windows (None: no scored action)."""
    if not units.actions:
        return None
    finals = []
    for verdicts, refused in units.actions:
        passes = np.asarray(verdicts, dtype=bool)
        drawn = passes[rng.integers(0, len(passes), size=(RESAMPLES, len(passes)))]
        finals.append(np.zeros(RESAMPLES) if refused else drawn.all(axis=1).astype(float))
    mean: np.ndarray = np.mean(finals, axis=0)
    return mean


def invariant_draws(units: RunUnits, rng: np.random.Generator) -> np.ndarray | None:
    if not units.invariants:
        return None
    credited = np.asarray(units.invariants, dtype=float)
    drawn = credited[rng.integers(0, len(credited), size=(RESAMPLES, len(credited)))]
    share: np.ndarray = drawn.mean(axis=1)
    return share


def observed_conformance(units: RunUnits) -> float:
    return float(np.mean([all(v) and not refused for v, refused in units.actions]))


def observed_invariants(units: RunUnits) -> float:
    return float(np.mean(units.invariants))


def over_units(
    cell: float, units: RunUnits, weights: dict[str, float], rng: np.random.Generator
) -> np.ndarray | None:
    """RESAMPLES values of a one-run cell: `cell` moved by each resampled phase times its
    weight in the cell (`weights`: the phases that are drawn, with their effective weight; a
    phase that timed out or is N/A is not among them and keeps its counted value)."""
    moved = np.full(RESAMPLES, float(cell))
    drew = False
    # Always draw both, in this order, so a phase's draws do not depend on the other's weight.
    p3, p4 = conformance_draws(units, rng), invariant_draws(units, rng)
    if p3 is not None and weights.get("conformance"):
        moved += weights["conformance"] * (p3 - observed_conformance(units))
        drew = True
    if p4 is not None and weights.get("invariant"):
        moved += weights["invariant"] * (p4 - observed_invariants(units))
        drew = True
    return moved if drew else None


def overall_draws(
    cells: Sequence[tuple[float, np.ndarray | None]], n_tasks: int
) -> np.ndarray | None:
    """RESAMPLES overalls of one model from its cells' (value, resamples or None)."""
    if not any(samples is not None for _, samples in cells):
        return None
    total = np.zeros(RESAMPLES)
    for value, samples in cells:
        total += value if samples is None else samples
    return total / n_tasks


def over_tasks(values: Sequence[float], model_id: int) -> np.ndarray | None:
    """RESAMPLES overalls of a model from its value on each of the board's tasks (0 where it has
    no run): the tasks drawn with replacement, averaged. None with fewer than two tasks."""
    if len(values) < 2:
        return None
    rng = np.random.default_rng([SEED, int(model_id), 0])  # task ids start at 1: no clash
    scores = np.asarray(values, dtype=float)
    drawn = scores[rng.integers(0, len(scores), size=(RESAMPLES, len(scores)))]
    means: np.ndarray = drawn.mean(axis=1)
    return means


def rank_ranges(
    points: Sequence[float], intervals: Sequence[tuple[float, float] | None]
) -> list[tuple[int, int]]:
    """[best, worst] rank of every model (definition in the module docstring). Counted by
    binary search over the sorted bounds: O(n log n), so a board of thousands of models ranks
    in milliseconds."""
    bounds = [iv if iv is not None else (p, p) for p, iv in zip(points, intervals, strict=True)]
    if not bounds:
        return []
    # Rounded as the board's ranks are, so equal overalls summed in another order still tie.
    lows = np.round(np.array([low for low, _ in bounds], dtype=float), 9)
    highs = np.round(np.array([high for _, high in bounds], dtype=float), 9)
    n = len(bounds)
    # best: 1 + #{j : low_j > high_i}; worst: #{j : high_j >= low_i}, which counts i itself
    # (its high is at least its low): that is the "1 +" of the definition.
    best = 1 + n - np.searchsorted(np.sort(lows), highs, side="right")
    worst = n - np.searchsorted(np.sort(highs), lows, side="left")
    return [(int(b), int(w)) for b, w in zip(best, worst, strict=True)]


def ties(ranges: Sequence[tuple[int, int]]) -> list[bool]:
    """Whether each range overlaps another's. Range j misses range i when it starts after i
    ends or ends before i starts, never both (a range starts no later than it ends), so the
    ranges meeting i are n minus those two counts, i itself among them."""
    if not ranges:
        return []
    bests = np.array([b for b, _ in ranges])
    worsts = np.array([w for _, w in ranges])
    after = len(ranges) - np.searchsorted(np.sort(bests), worsts, side="right")
    before = np.searchsorted(np.sort(worsts), bests, side="left")
    meeting = len(ranges) - after - before
    return [bool(m > 1) for m in meeting]
