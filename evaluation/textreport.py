"""The plain-text table `score` prints without --json (both `python -m evaluation score` and
`manage.py score`)."""

from typing import Any


def render(result: dict[str, Any]) -> str:
    """A table of the phases, each followed by its diagnostic lines."""
    lines = [f"{'phase':<12} {'status':<8} {'score':>6} {'time':>7}"]
    for name, phase in result["phases"].items():
        score = "-" if phase["score"] is None else f"{phase['score']:.3f}"
        lines.append(
            f"{name:<12} {phase['status']:<8} {score:>6} {phase['duration_seconds']:>6.1f}s"
        )
        lines.extend("    " + line for line in _phase_lines(phase))
    overall = result.get("overall")
    lines.append(
        f"overall {overall:.3f}" if overall is not None else "overall: n/a (not all phases ran)"
    )
    return "\n".join(lines) + "\n"


def _phase_lines(phase: dict[str, Any]) -> list[str]:
    details = phase["details"]
    lines = [m.splitlines()[0] for m in details.get("whole_module", {}).get("messages", []) if m]
    for row in details.get("definitions", []):
        if row["verdict"] != "ok":
            message = row["message"].strip().splitlines()
            lines.append(f"{row['name']} (line {row['line']}): {message[-1] if message else ''}")
    if phase["phase"] != "syntax":  # its per-definition rows are shown above when failing
        lines.extend(_action_line(phase["phase"], action) for action in phase["actions"])
    lines.extend(
        f"{inv['name']} ({inv['kind']}): {inv['verdict']}"
        + (
            f" - {inv['reason'].splitlines()[0]}"
            if inv["reason"] and inv["verdict"] != "holds"
            else ""
        )
        for inv in phase["invariants"]
    )
    error = details.get("error")
    if error:
        text = error.get("message", "") if isinstance(error, dict) else str(error)
        lines.append("error: " + text.strip()[:300])
    if details.get("reason"):
        lines.append(details["reason"])
    lines.extend(_heldout_lines(details))
    return lines


def _heldout_lines(details: dict[str, Any]) -> list[str]:
    """P3 on a held-out set: the official figure, the public one beside it, and the flag."""
    hidden = details.get("heldout")
    if not hidden:
        return []
    public = details.get("public") or {}
    lines = [
        f"held-out P3 (official) {_figure(hidden.get('score'))}, public P3 "
        f"{_figure(public.get('score'))} (pass rates {_figure(hidden.get('pooled_rate'))} / "
        f"{_figure(public.get('pooled_rate'))})"
    ]
    fit = details.get("fits_public")
    if fit and fit.get("flagged"):
        lines.append(
            "FLAGGED: fits the public windows, not the system (public pass rate exceeds the "
            f"held-out one by {fit['gap']:.2f}, more than {fit['margin']:.2f})"
        )
    return lines


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _action_line(phase: str, action: dict[str, Any]) -> str:
    detail = action["detail"]
    if phase == "runtime":
        error = " ERROR" if detail.get("error") else ""
        return f"{action['action']}: fired {detail.get('generated')}{error}"
    return f"{action['action']}: {action['passed']}/{action['total']}"
