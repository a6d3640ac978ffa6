"""A run as JSON (for /runs/<id>.json and the API) and as flat CSV rows.

Both exports carry every phase, action, window and invariant row, plus the scoring
fingerprint, so a downloaded run can be re-checked without the site.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TypedDict

from django.db.models import QuerySet
from django.urls import reverse

from evaluation.surface import (
    PHASES,
    ActionDetail,
    CounterexampleState,
    PhaseDetails,
    State,
    WindowDetail,
)
from leaderboard.models import PhaseResult, Run
from leaderboard.scoring.queueing import wait_estimate
from leaderboard.shared.disclosure import as_json as disclosure_json
from leaderboard.shared.rounding import figure

CSV_COLUMNS = [
    "run_id",
    "row",
    "phase",
    "name",
    "status",
    "credit",
    "score",
    "passed",
    "total",
    "trace_id",
    "window_id",
    "actor",
    "reason",
    "detail",
]


def _phases(run: Run) -> QuerySet[PhaseResult]:
    return run.phase_results.prefetch_related(
        "action_results", "window_results", "invariant_results"
    )


def run_summary(run: Run, queue_position: int | None = None) -> dict[str, Any]:
    """What the status endpoint and the API need to follow a run while it is scored."""
    phases = {p.phase: p for p in run.phase_results.all()}
    return {
        "id": run.pk,
        "status": run.status,
        "finished": run.is_terminal,
        "queue_position": queue_position,
        # An estimate, said as one on the page (leaderboard.scoring.queueing.wait_estimate).
        "queue_wait_estimate": wait_estimate(run) if queue_position is not None else None,
        "overall": figure(run.overall),
        "overall_unrounded": run.overall,
        "failure_reason": run.failure_reason,
        "phases": [
            {
                "phase": phase,
                "status": phases[phase].status if phase in phases else "pending",
                "score": figure(phases[phase].score) if phase in phases else None,
                "duration_seconds": phases[phase].duration_seconds if phase in phases else None,
            }
            for phase in PHASES
        ],
    }


def run_with_progress(run: Run, queue_position: int | None) -> dict[str, Any]:
    """`run_as_dict` with where the run stands: the queue fields at the top, equal to those of
    `progress` (computed once), so a script reads the same answer in either place."""
    progress = run_summary(run, queue_position)
    return {
        **run_as_dict(run),
        "queue_position": progress["queue_position"],
        "queue_wait_estimate": progress["queue_wait_estimate"],
        "progress": progress,
    }


def conformance_split(run: Run) -> dict[str, Any] | None:
    """Which P3 is official, the public and held-out checks as counts, and the review flag
    (`fits_public_only`: the public P3 exceeds the held-out one by more than the margin), read
    from the stored P3 details (None before scorer 3.0.0, or when P3 was not scored)."""
    p3 = next((p for p in run.phase_results.all() if p.phase == "conformance"), None)
    details = p3.details if p3 is not None else {}
    if not isinstance(details, dict) or "official" not in details:
        return None
    fit = details.get("fits_public") or None
    return {
        "official": details["official"],
        "public": details.get("public"),
        "heldout": details.get("heldout"),
        "fits_public": fit,
        "fits_public_only": bool(fit and fit.get("flagged")),
    }


def run_as_dict(run: Run) -> dict[str, Any]:
    """The whole run: metadata, fingerprint, spec, adapter and every result row."""
    reported = run.provenance == "reported"
    return {
        "id": run.pk,
        "url": reverse("run_detail", args=[run.pk]),
        "task": run.task.slug,
        "model": run.model.slug,
        "status": run.status,
        "provenance": run.provenance,
        "source": run.source,
        "submitter": run.submitter.get_username() if run.submitter else None,
        "review": run.review,
        # The public spec or earlier run of the task this spec is a near-duplicate of, for
        # reviewers (`scoring/likeness.py`); null when none is.
        "similar_to": run.similar_to,
        # `overall` and phase `score` are the published figures (leaderboard.shared.rounding), as on
        # the pages; the unrounded values are kept beside them for re-checking.
        "overall": figure(run.overall),
        "overall_unrounded": run.overall,
        "failure_reason": run.failure_reason,
        # A reported run was not scored here: it has no time of submission or scoring to give.
        "created_at": None if reported else run.created_at.isoformat(),
        "started_at": run.started_at.isoformat() if run.started_at and not reported else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at and not reported else None,
        "fingerprint": run.fingerprint,
        # How the spec was made, as the submitter disclosed it (null: not disclosed).
        "disclosure": disclosure_json(run),
        "spec_text": run.spec_text,
        "adapter_text": run.adapter_text,
        # Issue 37: the official P3 (held-out when the instance has a held-out set), the public
        # one beside it, and the flag for a run that fits the public windows, not the system.
        "conformance": conformance_split(run),
        "phases": [_phase_dict(p) for p in _phases(run)],
    }


class ExportedAction(TypedDict):
    action: str
    passed: int
    total: int
    detail: ActionDetail


class ExportedWindow(TypedDict):
    id: int
    action: str
    trace_id: str
    window_id: str
    actor: str
    verdict: str
    credit: str  # what it earns (Credit); the reason is prose for the reader
    reason: str
    pre_state: State
    post_state: State
    input: Any
    detail: WindowDetail


class ExportedInvariant(TypedDict):
    name: str
    kind: str
    verdict: str
    credit: str  # what it earns (Credit); the reason is prose for the reader
    reason: str
    counterexample: list[CounterexampleState]


class ExportedPhase(TypedDict):
    """One phase of `run_as_dict`: the stored JSON as the scorer wrote it
    (evaluation/details.py), beside the published and unrounded scores."""

    phase: str
    status: str
    score: float | None
    score_unrounded: float | None
    duration_seconds: float | None
    details: PhaseDetails
    actions: list[ExportedAction]
    windows: list[ExportedWindow]
    invariants: list[ExportedInvariant]


def _phase_dict(p: PhaseResult) -> ExportedPhase:
    return {
        "phase": p.phase,
        "status": p.status,
        "score": figure(p.score),
        "score_unrounded": p.score,
        "duration_seconds": p.duration_seconds,
        "details": p.details,
        "actions": [
            {"action": a.action, "passed": a.passed, "total": a.total, "detail": a.detail}
            for a in p.action_results.all()
        ],
        "windows": [
            {
                "id": w.pk,
                "action": w.action,
                "trace_id": w.trace_id,
                "window_id": w.window_id,
                "actor": w.actor,
                "verdict": w.verdict,
                "credit": w.credit,
                "reason": w.reason,
                "pre_state": w.pre_state,
                "post_state": w.post_state,
                "input": w.input,
                "detail": w.detail,
            }
            for w in p.window_results.all()
        ],
        "invariants": [
            {
                "name": i.name,
                "kind": i.kind,
                "verdict": i.verdict,
                "credit": i.credit,
                "reason": i.reason,
                "counterexample": i.counterexample,
            }
            for i in p.invariant_results.all()
        ],
    }


def run_csv_rows(run: Run) -> Iterator[list[object]]:
    """Flat rows in CSV_COLUMNS order: one per phase, action, window and invariant."""
    for p in _phases(run):
        yield _row(run, "phase", p.phase, name=p.phase, status=p.status, score=figure(p.score))
        for a in p.action_results.all():
            yield _row(
                run, "action", p.phase, name=a.action, score=a.pass_rate,
                passed=a.passed, total=a.total, detail=_compact(a.detail),
            )  # fmt: skip
        for w in p.window_results.all():
            yield _row(
                run, "window", p.phase, name=w.action, status=w.verdict, credit=w.credit,
                trace_id=w.trace_id,
                window_id=w.window_id, actor=w.actor, reason=w.reason, detail=_compact(w.detail),
            )  # fmt: skip
        for i in p.invariant_results.all():
            yield _row(
                run, "invariant", p.phase, name=i.name, status=i.verdict, credit=i.credit,
                reason=i.reason,
                detail=_compact({"kind": i.kind, "counterexample": i.counterexample}),
            )  # fmt: skip


def _row(run: Run, row: str, phase: str, **fields: object) -> list[object]:
    values = {"run_id": run.pk, "row": row, "phase": phase, **fields}
    return ["" if values.get(c) is None else values.get(c, "") for c in CSV_COLUMNS]


def _compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":")) if value else ""
