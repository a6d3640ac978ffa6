"""A comparison as JSON and as flat CSV rows (`/compare.json`, `/compare.csv`, same query as
the page): the per-phase means, the per-task × per-phase table with generation tokens, and the
per-action McNemar tests. Figures are the published ones (leaderboard.shared.rounding), as on the
page; a task a side has no run for is null."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from leaderboard.compare.overview import Side

CSV_COLUMNS = [
    "row",
    "task",
    "name",
    "a",
    "b",
    "delta",
    "windows",
    "a_only",
    "b_only",
    "p_value",
    "note",
]


def _side(side: Side) -> dict[str, str]:
    return {"name": side.full or side.name, "short_name": side.name, "slug": side.slug}


def _task(t: dict[str, Any]) -> dict[str, Any]:
    return {
        "task": t["task"]["slug"],
        "runs": {
            side: {"run_id": int(c["run_id"]), "provenance": c["provenance"]} if c else None
            for side, c in (("a", t.get("a")), ("b", t.get("b")))
        },
        "phases": {p["key"]: {"a": p["a"], "b": p["b"], "delta": p["delta"]} for p in t["phases"]},
        "generation_tokens": {"a": t["tokens_a"]["count"], "b": t["tokens_b"]["count"]},
    }


def _test(row: dict[str, Any]) -> dict[str, Any]:
    keys = ("windows", "b", "c", "p_value", "caution", "reading")
    out = {k: row[k] for k in keys}
    out["a_only"], out["b_only"] = out.pop("b"), out.pop("c")
    if out["caution"]:
        out["p_value"] = None
    return out


def _headline(headline: dict[str, Any]) -> dict[str, Any]:
    """The page's leading conclusion: its basis (windows or units) and the test it reads."""
    return {
        "basis": headline["basis"],
        "p_value": None if headline["caution"] else headline["p_value"],
        "caution": headline["caution"],
        "reading": headline["reading"],
        "significant": [
            {"task": r["task"]["slug"], "action": r["action"], "reading": r["reading"]}
            for r in headline["significant_rows"]
        ],
    }


def as_json(context: dict[str, Any]) -> dict[str, Any]:
    tests = context["windows_test"]
    return {
        "mode": context["mode"],
        "a": _side(context["a"]),
        "b": _side(context["b"]),
        "note": "Scores are 0..1 as published (task figures to 3 decimals, means 4 then 3); "
        "delta is B - A from the unrounded values. p_value is the exact two-sided McNemar "
        "test; it is null, with a caution, under 6 discordant windows.",
        "phases": {
            row["key"]: {"a": row["a_figure"], "b": row["b_figure"], "delta": row["delta"]}
            for row in context["phase_rows"]
        },
        "tasks": [_task(t) for t in context["tasks"]],
        "window_tests": [
            {"task": r["task"]["slug"], "action": r["action"], **_test(r)} for r in tests["rows"]
        ],
        "window_test_pooled": _test(tests["pooled"]) if tests["pooled"] else None,
        "paired_units": {k: v for k, v in context["paired"].items() if k != "headline"},
        "headline": _headline(context["paired"]["headline"]),
    }


def csv_rows(context: dict[str, Any]) -> Iterator[list[object]]:
    """Rows in CSV_COLUMNS order: a `phase` row per mean, a `task` row per task and phase
    (and its generation tokens), a `test` row per action tested."""
    for row in context["phase_rows"]:
        yield _row("phase", "", row["key"], row["a_figure"], row["b_figure"], row["delta"])
    for t in context["tasks"]:
        slug = t["task"]["slug"]
        for p in t["phases"]:
            yield _row("task", slug, p["key"], p["a"], p["b"], p["delta"])
        yield _row(
            "task", slug, "generation_tokens", t["tokens_a"]["count"], t["tokens_b"]["count"]
        )
    tests = context["windows_test"]
    for r in tests["rows"]:
        yield _test_row(r["task"]["slug"], r["action"], r)
    if tests["pooled"]:
        yield _test_row("", "all actions", tests["pooled"])


def _row(kind: str, task: str, name: str, a: object, b: object, delta: object = None) -> list:
    return _cells({"row": kind, "task": task, "name": name, "a": a, "b": b, "delta": delta})


def _test_row(task: str, name: str, r: dict[str, Any]) -> list[object]:
    values = {
        "row": "test",
        "task": task,
        "name": name,
        "windows": r["windows"],
        "a_only": r["b"],
        "b_only": r["c"],
        "p_value": None if r["caution"] else r["p_value"],
        "note": r["caution"] or r["reading"],
    }
    return _cells(values)


def _cells(values: dict[str, object]) -> list[object]:
    return ["" if values.get(c) is None else values[c] for c in CSV_COLUMNS]
