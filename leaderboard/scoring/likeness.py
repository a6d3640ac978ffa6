"""Near-duplicates (docs/decisions/0019-near-duplicates.md): a run's spec compared, by its shape
(`evaluation.tla.shape`), with the task's public specs (its reference and the reference's mutants)
and every earlier run of the task. The closest at or above NEAR_DUPLICATE is stored as
`Run.similar_to` and shown to reviewers (admin), on the run page and in the run's JSON; it flags, it
never changes a score.

Rescorings of one spec are one lineage and are not compared with each other. An earlier run
stored before shapes existed gets its shape on first comparison.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings

from evaluation.surface import NEAR_DUPLICATE, public_specs, similarity, spec_shape
from leaderboard.models import Run

# (similarity, tie order, what it names)
Candidate = tuple[float, tuple[int, int], dict[str, Any]]


def flag_near_duplicates(run: Run) -> dict[str, Any] | None:
    """Store the run's shape and its closest public spec or earlier run; returns `similar_to`."""
    shape = spec_shape(run.spec_text)
    run.shape_digest, run.shape_sketch = shape.digest, list(shape.sketch)
    run.similar_to = closest(run, shape.sketch)
    Run.objects.filter(pk=run.pk).update(
        shape_digest=run.shape_digest, shape_sketch=run.shape_sketch, similar_to=run.similar_to
    )
    return run.similar_to


def closest(run: Run, sketch: tuple[str, ...]) -> dict[str, Any] | None:
    """The public spec or earlier run most like `sketch`, if at least NEAR_DUPLICATE alike.
    On a tie the reference comes first, then its mutants (a mutant that only changes a string
    has the reference's shape), then the earliest run: the flag names what was copied."""
    best: Candidate | None = None
    for name, other in _public_sketches(run.task.slug).items():
        order = (0, 1 if "/mutants/" in name else 0)
        best = _better(best, similarity(sketch, other), order, {"reference": name})
    for pk, other in _earlier_sketches(run):
        best = _better(best, similarity(sketch, other), (1, pk), {"run": pk})
    if best is None or best[0] < NEAR_DUPLICATE:
        return None
    return {**best[2], "similarity": round(best[0], 3)}


def _better(
    best: Candidate | None, score: float, order: tuple[int, int], what: dict[str, Any]
) -> Candidate:
    if best is None or score > best[0] or (score == best[0] and order < best[1]):
        return score, order, what
    return best


def _earlier_sketches(run: Run) -> list[tuple[int, tuple[str, ...]]]:
    lineage = {pk for pk in (run.pk, run.rescore_of_id) if pk is not None}
    earlier = (
        Run.objects.filter(task_id=run.task_id, pk__lt=run.pk)
        .exclude(spec_text="")
        .exclude(pk__in=lineage)
        .exclude(rescore_of_id__in=lineage)
        .order_by("pk")
    )
    # Stored before shapes existed: measured once, and kept.
    for pk, text in list(earlier.filter(shape_digest="").values_list("pk", "spec_text")):
        shape = spec_shape(text)
        Run.objects.filter(pk=pk).update(shape_sketch=list(shape.sketch), shape_digest=shape.digest)
    return [(pk, tuple(sketch)) for pk, sketch in earlier.values_list("pk", "shape_sketch")]


@lru_cache(maxsize=32)
def _public_sketches(slug: str) -> dict[str, tuple[str, ...]]:
    """The task's public specs' sketches, measured once per process (they change with a
    deployment, which starts new processes)."""
    specs = public_specs(Path(settings.TASKS_DATA_DIR) / slug)
    return {name: spec_shape(text).sketch for name, text in specs.items()}
