"""P3 on the public windows and on a held-out set nobody has seen: one official outcome.

A leaderboard whose test set is public can be topped by memorising it (a spec that is a lookup
table of the public windows). With a held-out set (windows cut from traces that are never
served, exported or committed; docs/decisions/0012-held-out-traces.md), the official
P3 is the held-out check's, and the public check is shown beside it:

- the outcome recorded is the public check's (its window rows, diagnoses and action rows are
  public data, safe to show) with the held-out score; the held-out check is kept as counts only
  (`ConformanceSummary`: per action passed/total, no state, no window), so nothing of the
  held-out traces reaches a run page, an export or the run JSON;
- fail closed: the official P3 ran only if both checks ran; either one ending in an error (a
  scorer bug included) makes it `error` with score 0, and P4's credit, which follows P3
  (`phases/invariants/credit.py`), is withheld;
- a run whose public pooled pass rate exceeds its held-out one by more than `MARGIN` is flagged
  (`fits_public.flagged`): it fits the public windows, not the system.
"""

from __future__ import annotations

from typing import cast

from evaluation.details import ActionSummary, ConformanceDetails, ConformanceSummary, PublicFit
from evaluation.results import PhaseOutcome

# Measured (docs/decisions/0012-held-out-traces.md): on the reference specs and the corpus
# specs, the public and held-out pooled pass rates differ by at most 0.12 when the held-out set
# is a split of the same system's traces; a lookup table of the public windows differs by more
# than 0.6. The margin sits between, with room for a spec whose behaviour is truly uneven.
MARGIN = 0.25


def summary(outcome: PhaseOutcome, windows_sha256: str) -> ConformanceSummary:
    """`outcome` as counts only (what may be stored of a held-out check)."""
    rows = outcome.details.get("per_action") if outcome.status == "ran" else None
    per_action: dict[str, ActionSummary] = {}
    for action, row in cast(ConformanceDetails, {"per_action": rows or {}})["per_action"].items():
        per_action[action] = {
            "passed": row["passed"],
            "total": row["total"],
            "failed": row["failed"],
            "undecided": row["undecided"],
            "errors": row["errors"],
            "pass_rate": row["pass_rate"],
            "zero_tolerance": row["zero_tolerance"],
            "unspecific": bool(row.get("specificity_failure")),
        }
    total = sum(r["total"] for r in per_action.values())
    passed = sum(r["passed"] for r in per_action.values())
    out: ConformanceSummary = {
        "status": outcome.status,
        "score": outcome.score,
        "pooled_rate": round(passed / total, 6) if total else None,
        "windows": total,
        "undecided": sum(r["undecided"] for r in per_action.values()),
        "windows_sha256": windows_sha256,
        "per_action": per_action,
        "internal_error": bool(outcome.details.get("internal")),
    }
    error = outcome.details.get("error")
    if error:
        out["error"] = str(error)
    return out


def combine(
    public: PhaseOutcome,
    heldout: PhaseOutcome | None,
    public_sha256: str,
    heldout_sha256: str = "",
) -> PhaseOutcome:
    """The official P3 outcome (see the module doc); `heldout` None: the task has no held-out
    set here, and the public check is the official one."""
    shown = summary(public, public_sha256)
    public.details["public"] = shown
    public.details["heldout"] = None
    public.details["fits_public"] = None
    public.details["official"] = "public"
    if heldout is None:
        return public
    hidden = summary(heldout, heldout_sha256)
    public.details["official"] = "heldout"
    public.details["heldout"] = hidden
    if public.status != "ran" or heldout.status != "ran":
        return _failed(public, shown, hidden)
    public.score = heldout.score
    public.details["fits_public"] = fit(shown, hidden)
    return public


def fit(public: ConformanceSummary, heldout: ConformanceSummary) -> PublicFit:
    gap = (public["pooled_rate"] or 0.0) - (heldout["pooled_rate"] or 0.0)
    score_gap = (public["score"] or 0.0) - (heldout["score"] or 0.0)
    return {
        "flagged": gap > MARGIN,
        "gap": round(gap, 6),
        "score_gap": round(score_gap, 6),
        "margin": MARGIN,
    }


def _failed(
    outcome: PhaseOutcome, public: ConformanceSummary, heldout: ConformanceSummary
) -> PhaseOutcome:
    which = "public" if public["status"] != "ran" else "held-out"
    broken = public if which == "public" else heldout
    reason = broken.get("error") or f"status {broken['status']}"
    outcome.status = "error"
    outcome.score = 0.0
    details = cast(dict[str, object], outcome.details)
    details["error"] = f"the {which} conformance check did not run to the end: {reason}"
    if broken["internal_error"]:
        details["internal"] = True
    return outcome


def flagged(outcome: PhaseOutcome | None) -> bool:
    """The run fits the public windows, not the system (the review flag)."""
    found = outcome.details.get("fits_public") if outcome is not None else None
    return bool(found and found["flagged"])
