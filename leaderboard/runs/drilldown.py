"""Presentation helpers for the run page: turn stored result JSON into table rows.

The phases store variable detail as JSON (PhaseResult.details, WindowResult.detail,
InvariantResult.counterexample), in the shapes `evaluation/details.py` declares. These functions
read the documented keys (docs/ARCHITECTURE.md, "Interfaces") and tolerate absent ones, so an older
result row still renders instead of breaking the page; keys only older scorers wrote are read
through a plain mapping (`_stored`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from django.db.models import Count
from django.db.models.fields.json import KT

from evaluation.surface import (
    PHASES,
    ActionDetail,
    ConformanceDetails,
    CounterexampleState,
    InvariantDetails,
    Specificity,
    SyntaxDetails,
    TlcError,
    WindowDetail,
    lines_in,
)
from leaderboard.models import NOT_CREDITED, Credit, PhaseResult, Run, WindowResult
from leaderboard.shared.plain_words import aux_rule_sentence, label, tlc_value_text, value_text


def _stored(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A stored JSON object read as a plain mapping, for keys older scorers wrote (and for
    rows that predate a key)."""
    return value or {}


def render_value(value: object) -> str:
    """A compact, deterministic text form of a JSON state value."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))


def spec_errors(syntax_details: SyntaxDetails | None) -> list[dict[str, Any]]:
    """Every syntax message with the spec line it refers to (line None when unknown)."""
    errors = []
    for error in _stored(syntax_details).get("errors", []) or []:
        if isinstance(error, str):
            error = {"message": error}
        line = error.get("line") or next(iter(lines_in(error.get("message", ""))), None)
        errors.append({"line": line, "message": error.get("message", "")})
    whole = syntax_details.get("whole_module") if syntax_details else None
    for message in _stored(whole).get("messages", []) or []:
        errors.append({"line": next(iter(lines_in(message)), None), "message": message})
    for definition in definitions(syntax_details):
        if not definition["ok"] and definition["message"]:
            line = next(iter(lines_in(definition["message"])), None) or definition["line"]
            errors.append(
                {"line": line, "message": f"{definition['name']}: {definition['message']}"}
            )
    return errors


def definitions(syntax_details: SyntaxDetails | None) -> list[dict[str, Any]]:
    """The per-definition syntax table: name, line, parsed or not, SANY's message."""
    rows = []
    for row in (syntax_details.get("definitions") if syntax_details else None) or []:
        item = _stored(row)  # older rows: `messages`, `start_line`, `ok`/`parsed`
        message = item.get("message") or "\n".join(item.get("messages", []) or [])
        rows.append(
            {
                "name": item.get("name", "?"),
                "line": item.get("line") or item.get("start_line"),
                "ok": _definition_ok(item),
                "message": message,
            }
        )
    return rows


def _definition_ok(item: Mapping[str, Any]) -> bool:
    if "verdict" in item:
        verdict: object = item["verdict"]
        return verdict == "ok"
    return bool(item.get("ok", item.get("parsed", False)))


def source_lines(spec_text: str, errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Numbered spec lines, each with the error messages anchored to it."""
    by_line: dict[int, list[str]] = {}
    for error in errors:
        if error.get("line"):
            by_line.setdefault(int(error["line"]), []).append(error["message"])
    return [
        {"number": n, "text": text, "errors": by_line.get(n, [])}
        for n, text in enumerate(spec_text.splitlines(), start=1)
    ]


def diff_entries(window_detail: WindowDetail | None) -> list[dict[str, Any]]:
    """WindowResult.detail's differences as `{variable, key, trace, spec}` dicts.

    Accepted shapes: `diff` as {variable or path: {trace, spec}} or as a list of entries or
    names; `differences`; or `closest`/`successors` (the spec's nearest successors, each with
    its `differences`), of which the first (closest) one is used.
    """
    detail = _stored(window_detail)
    closest = _closest_successor(detail)
    raw = detail.get("diff") or detail.get("differences") or (closest or {}).get("differences")
    entries = []
    if isinstance(raw, dict):
        for path, value in raw.items():
            var = re.split(r"[\[.]", str(path), maxsplit=1)[0]
            entry = {"variable": var, "key": str(path)[len(var) :] or None}
            entry.update(value if isinstance(value, dict) else {"spec": value})
            entries.append(entry)
    elif isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict):
                var = item.get("variable") or item.get("var") or ""
                entries.append({**item, "variable": var})
            else:
                entries.append({"variable": re.split(r"[\[.]", str(item), maxsplit=1)[0]})
    return entries


def _closest_successor(detail: Mapping[str, Any]) -> dict[str, Any] | None:
    for key in ("closest", "successors"):
        found = detail.get(key)
        if isinstance(found, list) and found and isinstance(found[0], dict):
            closest: dict[str, Any] = found[0]
            return closest
    return None


def blocking_conjunct(window: WindowResult) -> dict[str, Any] | None:
    """The first false conjunct TLC found at a not-enabled window's pre-state, its values
    rendered (None when there is none)."""
    found = _stored(window.detail).get("blocking_conjunct")
    if not isinstance(found, dict) or "line" not in found:
        return None
    values = found.get("values") or {}
    return {
        "line": found["line"],
        "text": found.get("text", ""),
        "values": [(name, render_value(value)) for name, value in values.items()],
    }


def differing_variables(detail: WindowDetail | None) -> set[str]:
    """Schema variables where the spec and the trace disagree."""
    return {entry["variable"] for entry in diff_entries(detail)}


def window_rows(window: WindowResult) -> list[dict[str, Any]]:
    """One row per schema variable: pre, post (trace), what the spec allows, and if it differs."""
    # An accepted window has nothing the spec allows "instead": no diff is shown for it.
    detail: WindowDetail | None = {} if window.verdict == "pass" else window.detail
    entries = diff_entries(detail)
    differing = {entry["variable"] for entry in entries}
    successor = (_closest_successor(_stored(detail)) or {}).get("successor") or {}
    variables = list(dict.fromkeys([*window.pre_state, *window.post_state]))
    rows = []
    for var in variables:
        if var in successor:
            spec = render_value(successor[var])
        else:
            own = [e for e in entries if e["variable"] == var and "spec" in e]
            spec = "; ".join(_entry_text(e) for e in own)
        rows.append(
            {
                "variable": var,
                "pre": render_value(window.pre_state[var]) if var in window.pre_state else "",
                "post": render_value(window.post_state[var]) if var in window.post_state else "",
                "spec": spec,
                "differs": var in differing,
                "paths": [str(e["key"]) for e in entries if e["variable"] == var and e.get("key")],
            }
        )
    # The "what the spec allows instead" column is shown only when something fills it.
    any_spec = any(row["spec"] for row in rows)
    for row in rows:
        row["any_spec"] = any_spec
    return rows


def _entry_text(entry: dict[str, Any]) -> str:
    key = entry.get("key")
    prefix = "" if not key else (key if str(key).startswith(("[", ".")) else f"[{key}]") + ": "
    return prefix + render_value(entry["spec"])


def counterexample_table(states: list[CounterexampleState] | None) -> dict[str, Any]:
    """A counterexample as columns (variables) x rows (states); changed cells are marked.

    States are the invariant phase's `{step, action, vars: {var: TLA+ text}}` (a lasso's last
    entry has `back_to` instead of `vars`); a plain `{var: value}` dict is accepted too.
    """
    rows: list[dict[str, Any]] = []
    columns: list[str] = []
    previous: Mapping[str, Any] = {}
    for index, stored in enumerate(states or [], start=1):
        state = _stored(stored if isinstance(stored, dict) else None)
        structured = any(key in state for key in ("vars", "step", "action"))
        values = (state.get("vars") or {}) if structured else state
        label = str(state.get("action") or "") if structured else ""
        if state.get("back_to"):
            label += f" (loops back to state {state['back_to']})"
        if state.get("stuttering"):
            label = "stutters forever"
        columns.extend(var for var in values if var not in columns)
        rows.append({"index": index, "label": label, "values": values, "previous": previous})
        previous = values or previous
    for row in rows:
        row["cells"] = [
            {
                "value": _state_text(row["values"][c]) if c in row["values"] else "",
                "changed": bool(row["previous"])
                and row["values"].get(c) != row["previous"].get(c)
                and c in row["values"],
            }
            for c in columns
        ]
    return {"columns": columns, "rows": rows}


def _state_text(value: Any) -> str:
    # TLC prints counterexample values in TLA+ (`0 :> "idle" @@ ...`); windows are JSON-like, so
    # the page shows both in the windows' notation.
    return tlc_value_text(value)


def phase_note(result: PhaseResult | None) -> str:
    """Why a phase ended as it did (skipped, error, n/a), from its details; "" when it just ran."""
    if result is None:
        return ""
    details = _stored(result.details)  # every phase's details may say why
    error = details.get("error")
    if isinstance(error, dict):
        error = error.get("message")
    return str(details.get("reason") or error or "")


WINDOWS_SHOWN_PER_ACTION = 10
UNDECIDED_SHOWN_PER_HINT = 20
# Verdicts listed as failing windows; `undecided` ones are listed apart, by how to resolve them.
FAILING_VERDICTS = ("fail", "error")


def run_page(
    run: Run, expand_action: str | None = None, all_undecided: bool = False
) -> dict[str, Any]:
    """Everything the run page shows, read with a fixed number of queries."""
    results = {p.phase: p for p in run.phase_results.prefetch_related("action_results")}
    syntax_details: SyntaxDetails | None = (
        results["syntax"].details if "syntax" in results else None
    )
    errors = spec_errors(syntax_details)
    conformance = results.get("conformance")
    counts = verdict_counts(conformance)
    failing = failing_windows(conformance, counts, expand_action)
    invariants = results.get("invariant")
    invariant_table = invariant_rows(invariants)
    adapter = (run.adapter_text or "").strip()
    fingerprint = run.fingerprint or {}
    return {
        "run": run,
        "phases": [
            {
                "name": phase,
                "result": results.get(phase),
                "note": phase_note(results.get(phase)),
                "fingerprint": _phase_fingerprint(fingerprint, phase),
            }
            for phase in PHASES
        ],
        "definitions": definitions(syntax_details),
        "syntax_errors": errors,
        "runtime_actions": _action_rows(results.get("runtime")),
        "conformance_actions": scorecard_rows(conformance, counts, failing),
        "failing": failing,
        "undecided": undecided_groups(conformance, show_all=all_undecided),
        "conformance_notes": _conformance_notes(conformance),
        "window_totals": window_totals(counts) if conformance is not None else None,
        "excluded_invariants": ((invariants.details or {}).get("excluded") or [])
        if invariants
        else [],
        "invariants": invariant_table,
        "any_not_credited": any(row["not_credited"] for row in invariant_table),
        "invariant_counts": invariant_counts(invariant_table),
        "not_modelled": not_modelled_variables(invariants),
        "absent": absent_variables(invariants),
        "source": source_lines(run.spec_text, errors),
        "adapter": adapter,
        "custom_adapter": custom_adapter(run),
        "tlc_config": tlc_config(run),
        "is_reported": run.provenance == "reported",
        "has_trace_data": run.task.corpora.exists(),
        "fingerprint": fingerprint_rows(fingerprint),
        "scorer_image": scorer_image(fingerprint),
    }


def verdict_counts(result: PhaseResult | None) -> dict[str, dict[str, int]]:
    """action -> verdict -> number of the phase's windows (one grouped query)."""
    if result is None:
        return {}
    rows = (
        result.window_results.order_by()
        .values_list("action", "verdict")
        .annotate(n=Count("id"))
        .values_list("action", "verdict", "n")
    )
    counts: dict[str, dict[str, int]] = {}
    for action, verdict, n in rows:
        counts.setdefault(action, {})[verdict] = n
    return counts


def window_totals(counts: dict[str, dict[str, int]]) -> dict[str, int]:
    """The scorecard's summary: windows checked, accepted, failed and undecided."""
    by_verdict: dict[str, int] = {}
    for per_action in counts.values():
        for verdict, n in per_action.items():
            by_verdict[verdict] = by_verdict.get(verdict, 0) + n
    total = sum(by_verdict.values())
    return {
        "total": total,
        "not_accepted": total - by_verdict.get("pass", 0),  # undecided ones included
        "failed": sum(by_verdict.get(v, 0) for v in FAILING_VERDICTS),
        "errors": by_verdict.get("error", 0),
        "undecided": by_verdict.get("undecided", 0),
    }


def failing_windows(
    result: PhaseResult | None, counts: dict[str, dict[str, int]], expand_action: str | None
) -> dict[str, dict[str, Any]]:
    """Per action, its failed (or erroneous) windows with their tables, capped unless expanded."""
    if result is None:
        return {}
    windows = result.window_results.filter(verdict__in=FAILING_VERDICTS)
    failing = {}
    for action in sorted(counts):
        count = sum(counts[action].get(v, 0) for v in FAILING_VERDICTS)
        if not count:
            continue
        limit = None if action == expand_action else WINDOWS_SHOWN_PER_ACTION
        shown = list(windows.filter(action=action)[:limit])
        failing[action] = {
            "count": count,
            "hidden": count - len(shown),
            "windows": [{"window": w, "rows": window_rows(w)} for w in shown],
        }
    return failing


def undecided_groups(result: PhaseResult | None, show_all: bool = False) -> list[dict[str, Any]]:
    """Undecided windows grouped by how to resolve them (the scorer's hint), largest first.

    Every window of a kind has the same fix (a state mapping for the same spec variables), so
    the submitter reads it once; each window still links to its own page. Rows stored without
    a hint are grouped by their reason.
    """
    if result is None:
        return []
    rows = (
        result.window_results.filter(verdict="undecided")
        .annotate(hint=KT("detail__hint"))
        .values("pk", "window_id", "action", "actor", "trace_id", "hint", "reason")
    )
    groups: dict[str, dict[str, Any]] = {}
    for row in rows:
        key = row["hint"] or row["reason"]
        group = groups.setdefault(
            key, {"hint": row["hint"] or "", "reason": row["reason"], "windows": [], "actions": {}}
        )
        group["windows"].append(row)
        group["actions"][row["action"]] = group["actions"].get(row["action"], 0) + 1
    out = sorted(groups.values(), key=lambda g: (-len(g["windows"]), g["hint"]))
    for group in out:
        group["count"] = len(group["windows"])
        group["actions"] = sorted(group["actions"].items())
        if not show_all:
            group["windows"] = group["windows"][:UNDECIDED_SHOWN_PER_HINT]
        group["hidden"] = group["count"] - len(group["windows"])
    return out


def scorecard_rows(
    result: PhaseResult | None,
    counts: dict[str, dict[str, int]],
    failing: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    """The P3 scorecard: per action, windows accepted, failed and undecided apart."""
    rows = _action_rows(result)
    for row in rows:
        mine = counts.get(row["action"], {})
        row["failed"] = sum(mine.get(v, 0) for v in FAILING_VERDICTS)
        row["errors"] = mine.get("error", 0)
        row["undecided"] = mine.get("undecided", 0)
        # Only actions with failing windows have a section to jump to.
        row["has_failing"] = row["action"] in failing
    return rows


def invariant_rows(result: PhaseResult | None) -> list[dict[str, Any]]:
    """P4 rows with their counterexample tables; invariants over invented state, and ones that
    hold without earning credit (vacuous, or kept by unspecific actions), are marked."""
    if result is None:
        return []
    return [
        {
            "result": i,
            "table": counterexample_table(i.counterexample),
            "not_modelled": i.credit == Credit.NOT_MODELLED,
            "absent": i.credit == Credit.ABSENT,
            "not_credited": i.credit in NOT_CREDITED,
        }
        for i in result.invariant_results.all()
    ]


def invariant_counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    """P4's rows by what they earn. `errors` are the checks that could not be made (a TLC
    error, a budget): a credit rule that withdrew a point is counted apart, not as an error."""
    credits = [row["result"].credit for row in rows]
    return {
        "credited": credits.count(Credit.CREDITED),
        "violated": credits.count(Credit.FAILED),
        "not_credited": sum(c in NOT_CREDITED for c in credits),
        "not_modelled": credits.count(Credit.NOT_MODELLED),
        "absent": credits.count(Credit.ABSENT),
        "errors": credits.count(Credit.ERROR),
    }


def not_modelled_variables(result: PhaseResult | None) -> list[tuple[str, str]]:
    """Schema variables the adapter maps to an expression over no spec variable (P4 details)."""
    details: InvariantDetails | None = result.details if result is not None else None
    found = _stored(details).get("not_modelled") or {}  # a list in older rows
    return sorted(found.items()) if isinstance(found, dict) else [(str(v), "") for v in found]


def absent_variables(result: PhaseResult | None) -> list[str]:
    """Schema variables the spec does not have and no adapter maps (P4 details)."""
    details: InvariantDetails | None = result.details if result is not None else None
    found = _stored(details).get("absent") or []
    return [str(v) for v in found] if isinstance(found, list) else []


def custom_adapter(run: Run) -> bool:
    """Scored through a mapping of the submitter's (an adapter, or a cfg that completed one)."""
    return (
        bool((run.adapter_text or "").strip()) or (run.fingerprint or {}).get("adapter") == "custom"
    )


def tlc_config(run: Run) -> dict[str, Any] | None:
    """The submitter's TLC cfg, line by line, with what the scorer ignored and why.

    The entries ignored come from the fingerprint (`cfg_ignored`), so they are known once the
    run has been scored; each names its cfg line when the scorer recorded one.
    """
    text = run.cfg_text or ""
    if not text.strip():
        return None
    fingerprint = run.fingerprint or {}
    ignored = sorted(
        (
            {"line": i.get("line"), "entry": i.get("entry", ""), "reason": i.get("reason", "")}
            for i in fingerprint.get("cfg_ignored") or []
            if isinstance(i, dict)
        ),
        key=lambda i: (i["line"] is None, i["line"] or 0),
    )
    by_line: dict[int, list[dict[str, Any]]] = {}
    for item in ignored:
        if item["line"]:
            by_line.setdefault(int(item["line"]), []).append(item)
    lines = [
        {"number": n, "text": line, "ignored": by_line.get(n, [])}
        for n, line in enumerate(text.splitlines(), start=1)
    ]
    return {"lines": lines, "ignored": ignored, "scored": "cfg_ignored" in fingerprint}


def _conformance_notes(result: PhaseResult | None) -> dict[str, Any]:
    """The pooled pass rate, the rule for starting states and the adapter's state mappings the
    spec's behaviour refused, shown beside the P3 score."""
    details: ConformanceDetails | None = result.details if result is not None else None
    stored = _stored(details)  # a P3 that ended in `error` or was skipped has other keys
    aux = stored.get("auxiliary_state") or {}
    mapping = _stored(stored.get("state_mapping"))  # runs scored before scorer 2.0.0 have none
    return {
        "pooled_rate": stored.get("pooled_rate"),
        "distinct_cases": stored.get("distinct_cases"),
        "auxiliary_state": aux_rule_sentence(aux),
        "refused_mappings": [r.get("text", "") for r in mapping.get("refused") or []],
    }


def _action_rows(phase_result: PhaseResult | None) -> list[dict[str, Any]]:
    if phase_result is None:
        return []
    rows = []
    for a in phase_result.action_results.all():
        stored: ActionDetail | None = a.detail
        # One table for P2 and P3 rows (`RuntimeActionDetail`, `PerActionRow`): each has some.
        detail = _stored(stored)
        rows.append(
            {
                "action": a.action,
                "passed": a.passed,
                "total": a.total,
                "percent": round(100 * a.pass_rate) if a.pass_rate is not None else None,
                # P3 stores its verdict (an action that accepts a fair negative window fails
                # with every window passed); older rows and P2 rows have none.
                "zero_tolerance": detail["zero_tolerance"] == 1
                if detail.get("zero_tolerance") is not None
                else a.total > 0 and a.passed == a.total,
                "specificity": specificity_text(detail.get("specificity")),
                "specificity_failure": str(detail.get("specificity_failure") or ""),
                "line": detail.get("line"),
                "error": _error_text(detail.get("error")),
                # P2: why an action that fires does not count (or counts through hidden state).
                "note": str(detail.get("note") or ""),
                # P2's state counts by name; the page heads each with its label (RUNTIME_COUNTS).
                "counts": {k: detail.get(k) for k in RUNTIME_COUNTS},
            }
        )
    return rows


RUNTIME_COUNTS = {"generated": "states generated", "distinct": "distinct states"}


def _error_text(error: TlcError | str | None) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or "")
    return str(error or "")


def specificity_text(value: Specificity | Mapping[str, Any] | None) -> str:
    """'3 of 40 negative windows wrongly accepted' from the conformance phase's detail (older
    rows named the counts `negatives`/`total` and `accepted`); with the fair negatives (counted)
    and the other, diagnostic ones apart when the detail has both."""
    if not value:
        return ""
    if isinstance(value, dict):
        total = value.get("negatives", value.get("total", value.get("checked")))
        accepted = value.get("accepted", value.get("wrongly_accepted"))
        fair = value.get("fair")
        if isinstance(fair, dict) and isinstance(total, int) and isinstance(accepted, int):
            fair_checked, fair_accepted = int(fair.get("checked", 0)), int(fair.get("accepted", 0))
            return (
                f"{fair_accepted} of {fair_checked} fair negative windows accepted (counted); "
                f"{accepted - fair_accepted} of {total - fair_checked} other negative windows "
                "accepted (shown only)"
            )
        if total is not None and accepted is not None:
            return f"{accepted} of {total} negative windows wrongly accepted"
        return ", ".join(f"{k}: {render_value(v)}" for k, v in sorted(value.items()))
    return render_value(value)


# Which run-wide fingerprint entries each phase's result depends on (besides the spec).
PHASE_FINGERPRINT_KEYS = {
    "syntax": ("sany_version", "jar_sha256"),
    "runtime": ("tlc_version", "jar_sha256", "cfg_sha256"),
    "conformance": ("tlc_version", "windows_sha256", "window_count", "adapter"),
    "invariant": ("tlc_version", "contract_version", "adapter"),
}


def _phase_fingerprint(fingerprint: dict, phase: str) -> list[tuple[str, str]]:
    """The fingerprint entries that concern one phase: its TLC flags and the inputs it used."""
    own = (fingerprint.get("phases") or {}).get(phase) or {}
    rows = (
        [(label(key), value_text(key, value)) for key, value in sorted(own.items())]
        if isinstance(own, dict)
        else []
    )
    for key in PHASE_FINGERPRINT_KEYS.get(phase, ()):
        if fingerprint.get(key) not in (None, "", []):
            rows.append((label(key), value_text(key, fingerprint[key])))
    flags = (fingerprint.get("tlc_flags") or {}).get(phase)
    if flags:
        rows.append((label("tlc flags"), value_text("tlc flags", flags)))
    return rows


def scorer_image(fingerprint: dict) -> dict | None:
    """The container image a run was scored in (docker backend), or None."""
    if not fingerprint.get("scorer_image_id"):
        return None
    return {"name": fingerprint.get("scorer_image", ""), "id": fingerprint["scorer_image_id"]}


def fingerprint_rows(fingerprint: dict) -> list[tuple[str, str]]:
    """Run-wide fingerprint entries (tool hashes, versions, corpus hash) as display pairs."""
    # The cfg's ignored entries have their own section ("Your TLC config").
    skip = {"phases", "cfg_ignored", *PHASES}
    return [
        (label(key), value_text(key, value))
        for key, value in sorted(fingerprint.items())
        if key not in skip and value not in (None, "", [], {})
    ]
