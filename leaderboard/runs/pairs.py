"""Two verified runs of one task side by side: per action, per window, per invariant, per
definition (P1) and per action at runtime (P2).

Everything is read for all compared run pairs at once (a fixed number of queries for a model
comparison over all tasks), so the compare page stays fast at scale.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.urls import reverse

from evaluation.surface import SyntaxDetails
from leaderboard.models import ActionResult, InvariantResult, PhaseResult, Run, WindowResult
from leaderboard.runs.drilldown import definitions
from leaderboard.runs.paired import window_pairs
from leaderboard.shared.params import parse_id

SPLIT_WINDOWS_SHOWN = 25


def _side_actions(
    rows: Iterable[tuple[int, str, str, int, int]],
) -> dict[tuple[int, str], dict[str, tuple[int, int]]]:
    """(run id, phase) -> {action: (passed, total)}."""
    out: dict[tuple[int, str], dict[str, tuple[int, int]]] = {}
    for run_id, phase, action, passed, total in rows:
        out.setdefault((run_id, phase), {})[action] = (passed, total)
    return out


def load(run_ids: list[int]) -> dict[str, Any]:
    """Per-run detail rows for the runs being compared, in five queries."""
    actions = _side_actions(
        ActionResult.objects.filter(
            phase_result__run_id__in=run_ids, phase_result__phase__in=["runtime", "conformance"]
        ).values_list("phase_result__run_id", "phase_result__phase", "action", "passed", "total")
    )
    windows: dict[int, dict[tuple[str, str], tuple[int, str, str]]] = {}
    for run_id, pk, action, trace, window, verdict in WindowResult.objects.filter(
        phase_result__run_id__in=run_ids
    ).values_list("phase_result__run_id", "pk", "action", "trace_id", "window_id", "verdict"):
        windows.setdefault(run_id, {})[(trace, window)] = (pk, action, verdict)
    invariants: dict[int, dict[str, str]] = {}
    for run_id, name, verdict in InvariantResult.objects.filter(
        phase_result__run_id__in=run_ids
    ).values_list("phase_result__run_id", "name", "verdict"):
        invariants.setdefault(run_id, {})[name] = verdict
    syntax: dict[int, dict[str, bool]] = {}
    for run_id, details in PhaseResult.objects.filter(
        run_id__in=run_ids, phase="syntax"
    ).values_list("run_id", "details"):
        stored: SyntaxDetails | None = details
        syntax[run_id] = {d["name"]: d["ok"] for d in definitions(stored)}
    return {"actions": actions, "windows": windows, "invariants": invariants, "syntax": syntax}


def _rate(pair: tuple[int, int] | None) -> dict[str, Any]:
    if pair is None:
        return {"text": "—", "passed": None, "total": None, "rate": None, "zero": False}
    passed, total = pair
    rate = passed / total if total else None
    return {
        "passed": passed,
        "total": total,
        "rate": rate,
        "text": f"{passed}/{total}",
        "percent": "—" if rate is None else f"{rate * 100:.0f}%",
        "zero": bool(total) and passed == total,
    }


def action_rows(
    a: dict[str, tuple[int, int]], b: dict[str, tuple[int, int]]
) -> list[dict[str, Any]]:
    """One row per action with both sides' window counts, pass rates and zero-tolerance verdict."""
    rows = []
    for name in sorted(set(a) | set(b)):
        left, right = _rate(a.get(name)), _rate(b.get(name))
        rows.append(
            {"action": name, "a": left, "b": right, "differs": left["zero"] != right["zero"]}
        )
    return rows


def split_windows(
    run_a: int, run_b: int, windows: dict[int, dict[tuple[str, str], tuple[int, str, str]]]
) -> list[dict[str, Any]]:
    """Windows one run accepts and the other does not, each with a link to both verdicts."""
    mine, theirs = windows.get(run_a, {}), windows.get(run_b, {})
    out = []
    for key in sorted(set(mine) & set(theirs)):
        pk_a, action, verdict_a = mine[key]
        pk_b, _, verdict_b = theirs[key]
        if (verdict_a == "pass") == (verdict_b == "pass"):
            continue
        url = reverse("window_detail", args=[run_a, pk_a]) + f"?vs={pk_b}"
        out.append(
            {
                "action": action,
                "trace_id": key[0],
                "window_id": key[1],
                "a": verdict_a,
                "b": verdict_b,
                "accepted_by": "A" if verdict_a == "pass" else "B",
                "url": url,
            }
        )
    return out


def _side_by_side(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"name": n, "a": a.get(n), "b": b.get(n), "differs": a.get(n) != b.get(n)}
        for n in sorted(set(a) | set(b))
    ]


def run_pair(run_a: int, run_b: int, data: dict[str, Any]) -> dict[str, Any]:
    """The whole side-by-side block for two runs of one task."""
    acts = data["actions"]
    windows = split_windows(run_a, run_b, data["windows"])
    syntax_a, syntax_b = data["syntax"].get(run_a), data["syntax"].get(run_b)
    runtime_a, runtime_b = acts.get((run_a, "runtime")), acts.get((run_b, "runtime"))
    return {
        "actions": action_rows(
            acts.get((run_a, "conformance"), {}), acts.get((run_b, "conformance"), {})
        ),
        # Exact McNemar per action over the windows both runs checked.
        "mcnemar": window_pairs(data["windows"].get(run_a, {}), data["windows"].get(run_b, {})),
        "split_windows": windows[:SPLIT_WINDOWS_SHOWN],
        "split_count": len(windows),
        "split_a": sum(1 for w in windows if w["accepted_by"] == "A"),
        "split_b": sum(1 for w in windows if w["accepted_by"] == "B"),
        "invariants": _side_by_side(
            data["invariants"].get(run_a, {}), data["invariants"].get(run_b, {})
        ),
        # P1 per definition and P2 per action only where both runs have them.
        "definitions": _side_by_side(syntax_a, syntax_b) if syntax_a and syntax_b else [],
        "runtime": [
            {"name": r["action"], "a": r["a"]["zero"], "b": r["b"]["zero"], "differs": r["differs"]}
            for r in action_rows(runtime_a, runtime_b)
        ]
        if runtime_a and runtime_b
        else [],
    }


def has_actions(run_id: int, data: dict[str, Any]) -> bool:
    return bool(data["actions"].get((run_id, "conformance")))


def same_window(
    window: WindowResult, other_pk: str, user: User | AnonymousUser
) -> WindowResult | None:
    """The WindowResult `other_pk` when it is the same trace window checked by another run of
    the same task that `user` may see; None otherwise (the page shows the one window only)."""
    pk = parse_id(other_pk)
    if pk is None:
        return None
    return (
        WindowResult.objects.select_related("phase_result__run__model")
        .filter(
            pk=pk,
            trace_id=window.trace_id,
            window_id=window.window_id,
            phase_result__run__task_id=window.phase_result.run.task_id,
            phase_result__run__in=Run.objects.visible_to(user),
        )
        .exclude(pk=window.pk)
        .first()
    )
