"""How a run's spec was made, as its submitter disclosed it
(docs/decisions/0025-cell-policy-and-disclosure.md), in words and as JSON.

A best-of-50 and a one-shot spec score alike; only the disclosure tells them apart, so every
page that shows a run's score can show this line beside it. An empty field reads "not
disclosed" (for a reported run, "not published": the source never said).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from leaderboard.models import Run, Task


def tokens_text(count: int | None) -> str:
    """1234567 -> "1.2 M"; 45100 -> "45.1 k"; 134000 -> "134 k"; 950 -> "950"."""
    if count is None:
        return ""
    for size, unit in ((10**9, "G"), (10**6, "M"), (10**3, "k")):
        if count >= size:
            return f"{count / size:.1f}".removesuffix(".0") + f" {unit}"
    return str(count)


def _specs(run: Run) -> str | None:
    generated, submitted = run.specs_generated, run.specs_submitted
    if generated is not None and submitted is not None:
        return f"{submitted} of {generated} generated spec{'s' if generated != 1 else ''} submitted"
    if generated is not None:
        return f"{generated} spec{'s' if generated != 1 else ''} generated"
    if submitted is not None:
        return f"{submitted} spec{'s' if submitted != 1 else ''} submitted"
    return None


def _tokens(run: Run) -> str | None:
    total = run.generation_tokens
    if total is None:
        return None
    split = [
        f"{tokens_text(n)} {side}"
        for n, side in ((run.tokens_in, "in"), (run.tokens_out, "out"))
        if n is not None
    ]
    return f"{tokens_text(total)} tokens ({', '.join(split)})"


def describe(run: Run) -> dict[str, Any]:
    """`text`: the one line pages show; `missing`: what was not said; `disclosed`: anything was."""
    rounds = run.repair_rounds
    parts = {
        "specs generated and submitted": _specs(run),
        "repair rounds": None
        if rounds is None
        else f"{rounds} repair round{'s' if rounds != 1 else ''}",
        "LLM or agent": run.get_generated_by_display() if run.generated_by else None,
        "generation date": f"generated {run.generated_on.isoformat()}"
        if run.generated_on
        else None,
        "tokens": _tokens(run),
        "cost": None if run.cost_usd is None else f"${run.cost_usd:,.2f}",
    }
    said = [text for text in parts.values() if text]
    missing = [name for name, text in parts.items() if not text]
    absent = "not published" if run.provenance == Run.Provenance.REPORTED else "not disclosed"
    if not said:
        text = absent
    else:
        text = "; ".join(said) + (f"; {absent}: {', '.join(missing)}" if missing else "")
    return {"text": text, "said": said, "missing": missing, "disclosed": bool(said)}


def as_json(run: Run) -> dict[str, Any]:
    """The disclosure fields for the run export: null where not disclosed."""
    return {
        "specs_generated": run.specs_generated,
        "specs_submitted": run.specs_submitted,
        "repair_rounds": run.repair_rounds,
        "generated_by": run.generated_by or None,
        "generated_on": run.generated_on.isoformat() if run.generated_on else None,
        "tokens_in": run.tokens_in,
        "tokens_out": run.tokens_out,
        "generation_tokens": run.generation_tokens,
        "cost_usd": None if run.cost_usd is None else float(run.cost_usd),
    }


def model_rows(runs: Iterable[Run]) -> list[dict[str, Any]]:
    """The model page's "how the runs were made": per task (in the order given), each run with
    its disclosure line and tokens, and the task's known tokens added up."""
    by_task: dict[int, list[Run]] = {}
    tasks: dict[int, Task] = {}
    for run in runs:
        by_task.setdefault(run.task_id, []).append(run)
        tasks.setdefault(run.task_id, run.task)
    rows = []
    for task_id, mine in by_task.items():
        known = [r.generation_tokens for r in mine if r.generation_tokens is not None]
        rows.append(
            {
                "task": tasks[task_id],
                "runs": [{"run": r, "disclosure": describe(r)} for r in mine],
                "tokens": sum(known) if known else None,
                "tokens_text": tokens_text(sum(known)) if known else "",
            }
        )
    return rows
