"""Score one spec from the command line: no web server, no Redis.

    python manage.py score --task spin spec.tla [--cfg spec.cfg] [--json] [--phases syntax,runtime]

Runs P1 (syntax) and P2 (runtime, gated on P1 as in DESIGN.md §3.2) with the real SANY/TLC.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluation.phases import runtime, syntax
from evaluation.results import PhaseOutcome

PHASES = ("syntax", "runtime")


class Command(BaseCommand):
    help = "Score a TLA+ spec for a task (P1 syntax + P2 runtime) and print the result."

    def add_arguments(self, parser):
        parser.add_argument("spec", help="path to the .tla file")
        parser.add_argument("--task", required=True, help="task slug, e.g. spin")
        parser.add_argument("--cfg", help="TLC .cfg whose CONSTANTS are used if the task has none")
        parser.add_argument("--json", action="store_true", help="print JSON")
        parser.add_argument("--phases", default=",".join(PHASES))

    def handle(self, *args, **options):
        spec_text = _read(options["spec"])
        cfg_text = _read(options["cfg"]) if options["cfg"] else None
        phases = [p.strip() for p in options["phases"].split(",") if p.strip()]
        unknown = set(phases) - set(PHASES)
        if unknown:
            raise CommandError(f"unknown phase(s) {sorted(unknown)}; choose from {PHASES}")
        contract = _contract(options["task"])
        outcomes = _score(spec_text, contract, cfg_text, phases)
        if options["json"]:
            self.stdout.write(json.dumps([o.to_dict() for o in outcomes], indent=2))
        else:
            for outcome in outcomes:
                self.stdout.write(_summary(outcome))


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read {path}: {exc}") from exc


def _contract(slug: str):
    from evaluation.contracts import ContractError, load_contract

    try:
        return load_contract(slug)
    except (ContractError, FileNotFoundError, OSError) as exc:
        raise CommandError(f"task {slug!r}: {exc}") from exc


def _score(spec_text, contract, cfg_text, phases) -> list[PhaseOutcome]:
    outcomes = []
    if "syntax" in phases:
        outcomes.append(syntax.check_syntax(spec_text, contract))
    if "runtime" in phases:
        if outcomes and not syntax.syntax_passed(outcomes[0]):
            outcomes.append(
                PhaseOutcome("runtime", "skipped", 0.0, {"reason": "syntax phase did not pass"})
            )
        else:
            outcomes.append(runtime.check_runtime(spec_text, contract, cfg_text))
    return outcomes


def _summary(outcome: PhaseOutcome) -> str:
    lines = [
        f"{outcome.phase}: status={outcome.status} score={outcome.score}"
        f" ({outcome.duration_seconds:.1f}s)"
    ]
    details = outcome.details
    for message in details.get("whole_module", {}).get("messages", []):
        lines.append("  " + message.splitlines()[0] if message else "")
    for row in details.get("definitions", []):
        if row["verdict"] != "ok":
            first = row["message"].strip().splitlines()
            lines.append(f"  {row['name']} (line {row['line']}): {first[-1] if first else ''}")
    for action in outcome.actions if outcome.phase == "runtime" else []:
        error = " ERROR" if action.detail.get("error") else ""
        lines.append(f"  {action.action}: fired {action.detail.get('generated')}{error}")
    if details.get("error") and outcome.phase == "runtime":
        error = details["error"]
        lines.append(
            "  error: "
            + (error.get("message", "") if isinstance(error, dict) else str(error))[:300]
        )
    if details.get("reason"):
        lines.append("  " + details["reason"])
    return "\n".join(lines)
