"""The run page in a researcher's words: field labels, tool versions, the auxiliary-state rule,
and one notation for values (TLC's `:>`/`@@` counterexample values shown like the windows' JSON).
"""

from __future__ import annotations

import json
import re

from evaluation.surface import ModelValue, TlaSet, TlcValueError, parse_tlc_value

FIELD_LABELS = {
    "scorer_version": "Scorer version",
    "jar_sha256": "tla2tools.jar (SHA-256)",
    "tlc_version": "TLC version",
    "sany_version": "SANY version",
    "unicode_symbols_rewritten": "Unicode symbols read as ASCII",
    "java_version": "Java",
    "task": "Task",
    "contract_version": "Task contract version",
    "windows_sha256": "Trace windows (SHA-256)",
    "window_count": "Trace windows checked",
    "adapter": "Adapter",
    "adapter_sha256": "Adapter (SHA-256)",
    "tlc_flags": "TLC options",
    "tlc flags": "TLC options",
    "seeds": "Random seeds (recorded; P2's breadth-first search does not use them)",
    "cfg_sha256": "TLC configuration (SHA-256)",
    "weights": "Phase weights",
    "reported_by": "Reported by",
    "repair_status": "Repair status",
    "repair_edits": "Repair edits",
    "workspace": "Original workspace",
    "depth": "Search depth",
    "max_states": "State bound",
    "wall_seconds": "Time limit (s)",
}

# Release years of the TLC/SANY builds this site has shipped whose banners carry no date
# (TLC 2.15's banner reads "of Day Month 20??"; it was released in 2020).
KNOWN_RELEASE_YEARS = {("TLC", "2.15"): "2020"}
# Build dates of the jars whose banner has the placeholder, by git revision: the date in the
# jar's own manifest (`Implementation-Version: 2.0 2020-01-30`, `X-Git-ShortRevision: d5b5a7f`;
# tests/test_first_hour_rough_edges.py reads it from the installed jar).
KNOWN_BUILD_DATES = {"d5b5a7f": "2020-01-30"}
PLACEHOLDER_DATE = "Day Month 20??"


def label(key: str) -> str:
    """A field's label: a known one, else the key in words (`max_states` -> "Max states")."""
    if key in FIELD_LABELS:
        return FIELD_LABELS[key]
    words = str(key).replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def tool_version(banner: str) -> str:
    """'TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)' -> 'TLC 2.15 (2020)'."""
    match = re.search(r"\b(TLC|SANY)2? Version (\d+(?:\.\d+)*)", banner or "")
    if not match:
        java = re.search(r'(\w+) version "([\d.]+)"(?: (\d{4}))?', banner or "")
        if java:
            vendor = {"openjdk": "OpenJDK", "java": "Java"}.get(java.group(1).lower(), "Java")
            return f"{vendor} {java.group(2)}" + (f" ({java.group(3)})" if java.group(3) else "")
        return banner
    tool, version = match.groups()
    year = re.search(r"\b(19|20)(\d\d)\b", banner[match.end() :])
    year_text = year.group(0) if year else KNOWN_RELEASE_YEARS.get((tool, version))
    return f"{tool} {version}" + (f" ({year_text})" if year_text else "")


def dated_banner(banner: str) -> str:
    """A tool's banner with TLC's placeholder date replaced by the jar's build date where the
    revision is known: 'TLC2 Version 2.15 of 30 January 2020 (rev: d5b5a7f)'."""
    rev = re.search(r"\(rev: ([0-9a-f]+)\)", banner or "")
    date = KNOWN_BUILD_DATES.get(rev.group(1)) if rev else None
    if not date or PLACEHOLDER_DATE not in banner:
        return banner
    year, month, day = (int(part) for part in date.split("-"))
    words = f"{day} {MONTHS[month - 1]} {year}"
    return banner.replace(PLACEHOLDER_DATE, words)


MONTHS = ("January February March April May June July August September October November "
          "December").split()  # fmt: skip


def value_text(key: str, value: object) -> str:
    """A fingerprint value in words: versions shortened, lists joined, hashes cut."""
    if key in ("tlc_version", "sany_version", "java_version") and isinstance(value, str):
        return tool_version(value)
    if key == "adapter" and value in ("identity", "custom"):
        return "none (the spec uses the task's names)" if value == "identity" else "custom mapping"
    if isinstance(value, list) and all(isinstance(v, (int, str)) for v in value):
        return ", ".join(str(v) for v in value) if key != "tlc flags" else " ".join(map(str, value))
    if isinstance(value, dict):
        inner = "tlc flags" if key in ("tlc_flags", "tlc flags") else None
        return "; ".join(f"{label(k)}: {value_text(inner or k, v)}" for k, v in value.items())
    if isinstance(value, str) and re.fullmatch(r"[0-9a-f]{40,64}", value):
        return value[:12]
    return value if isinstance(value, str) else json.dumps(value)


AUX_RULES = {
    "pinned": "Every variable of the spec is fixed by the window (or built by a state mapping "
    "the spec's own states confirm), so each window is checked from exactly one starting state.",
    # Runs scored before scorer 2.0.0, when TypeOK could supply starting states
    # (docs/decisions/0006-p3-follows-traces.md).
    "typeok": "Variables the window does not fix may start at any value the spec's own TypeOK "
    "allows (an older rule: TypeOK no longer supplies starting states).",
    "explored": "Variables the window does not fix start at the values they have in the states "
    "the spec reaches from Init that show the window's pre-state, and the window passes only if "
    "the action works from every one of them.",
}


def aux_rule_sentence(aux: object) -> str:
    """The auxiliary-state rule used for a run, in one sentence ("" when not recorded)."""
    if not aux:
        return ""
    if isinstance(aux, dict):
        rule = aux.get("rule")
        text = str(aux.get("description") or "")
    else:
        rule, text = None, str(aux)
    if rule not in AUX_RULES:
        number = re.search(r"\(rule (\d)\)", text)
        # Rule numbers as older runs wrote them (2 was TypeOK, 3 the explored states).
        rule = {"1": "pinned", "2": "typeok", "3": "explored"}.get(
            number.group(1) if number else ""
        )
    return AUX_RULES.get(rule or "", text)


def _json_like(value: object) -> object:
    if isinstance(value, ModelValue):
        return value.name
    if isinstance(value, TlaSet):
        return sorted((_json_like(v) for v in value.items), key=repr)
    if isinstance(value, tuple):
        return [_json_like(v) for v in value]
    if isinstance(value, dict):
        return {str(_json_like(k)): _json_like(v) for k, v in value.items()}
    return value


def tlc_value_text(text: object) -> str:
    """A TLC value (`(0 :> "idle" @@ 1 :> "locked")`) in the windows' JSON-like notation
    (`{"0": "idle", "1": "locked"}`); text TLC printed that the reader cannot parse stays as is."""
    if not isinstance(text, str):
        return json.dumps(text, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))
    try:
        value = _json_like(parse_tlc_value(text))
    except (TlcValueError, IndexError, ValueError):
        return text
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))
