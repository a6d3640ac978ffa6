"""Specificity per action: the negative windows its checks accepted, and what that costs.

Fair negatives (`fair.py`: transitions the corpus shows the system never makes) count: an
action that accepts any of them fails zero tolerance, whatever its real windows did, because a
spec that allows what the system never does has not modelled the action (an action that allows
every safe change accepts every real window too). So does an action some of whose fair
negatives were never evaluated (fail closed). The diagnostic families (`neg-post`,
`neg-step`) are shown beside them and never counted: the system may make some of those.
"""

from __future__ import annotations

import json

from evaluation.details import FairExample, FamilyCount, Specificity
from evaluation.phases.conformance.cases import Case
from evaluation.phases.conformance.fair import FAIR_KINDS, FairCase
from evaluation.phases.conformance.runner import CaseResult
from evaluation.phases.conformance.safety import SAFETY

DIAGNOSTIC_KINDS = ("neg-post", "neg-step")
REFUSAL = "accepts a transition the system never makes"
UNSHOWN = "could not be shown to refuse the transitions the system never makes"
EXAMPLES = 5


def of_action(action: str, negatives: list[Case], results: list[CaseResult]) -> Specificity:
    """The `specificity` detail of one action's P3 row."""
    mine = [(c, r) for c, r in zip(negatives, results, strict=True) if c.action == action]
    accepted = [(c, r) for c, r in mine if r.verdict == "pass"]
    fair = [(c, r) for c, r in mine if c.kind in FAIR_KINDS]
    fair_accepted = [c for c, r in fair if r.verdict == "pass" and isinstance(c, FairCase)]
    return {
        "checked": len(mine),
        "wrongly_accepted": len(accepted),
        "fair": {
            "checked": len(fair),
            "accepted": len(fair_accepted),
            "errors": sum(1 for _, r in fair if r.verdict == "error"),
            "unevaluated": _unevaluated(fair),
            "examples": [_fair_example(c) for c in fair_accepted[:EXAMPLES]],
        },
        "by_family": {kind: _family(kind, mine) for kind in (*FAIR_KINDS, *DIAGNOSTIC_KINDS)},
        "examples": [
            {"family": c.kind, "actor": c.actor, "pre_state": c.pre, "post_state": c.post}
            for c, _ in accepted[:EXAMPLES]
        ],
    }


def _unevaluated(fair: list[tuple[Case, CaseResult]]) -> int:
    """Fair negatives P3 could not decide (a safety negative's is not counted here)."""
    return sum(1 for c, r in fair if c.kind != SAFETY and r.verdict in ("undecided", "error"))


def _family(kind: str, mine: list[tuple[Case, CaseResult]]) -> FamilyCount:
    verdicts = [r.verdict for c, r in mine if c.kind == kind]
    return FamilyCount(
        checked=len(verdicts),
        wrongly_accepted=verdicts.count("pass"),
        errors=verdicts.count("error"),
    )


def _fair_example(case: FairCase) -> FairExample:
    return {
        "family": case.kind,
        "actor": case.actor,
        "input": case.input,
        "pre_state": case.pre,
        "post_state": case.post,
        "changed": case.changed,
        "why": case.why,
    }


def refusal(action: str, detail: Specificity) -> str:
    """Why the action fails zero tolerance on specificity ("" when it does not)."""
    fair = detail.get("fair")
    if not fair:
        return ""
    if not fair["accepted"]:
        unshown = fair.get("unevaluated", 0)
        if not unshown:
            return ""
        # Fail closed: a spec that stops its checks (an evaluation error, the work bound) before
        # its negatives are read must not keep the passes it printed before. An honest spec
        # whose windows all pass has each of these read: they sit at those very windows.
        return (
            f"{UNSHOWN}: {unshown} of {fair['checked']} fair negative windows were not "
            "evaluated (TLC stopped, or no state reached their position)"
        )
    example = fair["examples"][0]
    changes = "; ".join(
        f"{c['slot']} = {_show(c['negative'])} where the trace has {_show(c['trace'])}"
        for c in example["changed"]
    )
    return (
        f"{REFUSAL}: {fair['accepted']} of {fair['checked']} fair negative windows accepted, "
        f"e.g. {action} by {example['actor']} from a window's pre-state to its post-state with "
        f"{changes} ({example['why']})"
    )


def _show(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."
