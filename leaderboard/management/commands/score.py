"""Score one spec from the command line: no web server, no Redis.

    python manage.py score --task spin spec.tla [--cfg spec.cfg] [--adapter adapter.yaml]
        [--data-dir DIR] [--phases syntax,runtime,conformance,invariant] [--json]

Every phase goes through `evaluation.pipeline.score_spec`, exactly as the scoring job does: same
gating, same composite, same fingerprint; the windows are cut from `--data-dir` (default
`settings.SYSMOBENCH_DATA_DIR`). `--phases` runs only the phases named, in the official order; a
phase then gates only on the selected phases before it, and no overall is given (it would not be
the official figure).
"""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from evaluation import pipeline
from evaluation.contracts import ContractError, load_contract, parse_adapter
from evaluation.pipeline import PHASES
from evaluation.windows import WindowFormatError, cut_windows


class Command(BaseCommand):
    help = "Score a TLA+ spec for a task (P1-P4, or the phases chosen) and print the result."

    def add_arguments(self, parser):
        parser.add_argument("spec", help="path to the .tla file")
        parser.add_argument("--task", required=True, help="task slug, e.g. spin")
        parser.add_argument(
            "--cfg",
            help="the submitter's TLC .cfg: constants the contract does not pin, model values, "
            "SPECIFICATION/INIT/NEXT (the rest is reported as ignored)",
        )
        parser.add_argument("--adapter", help="adapter YAML mapping the spec to the task contract")
        parser.add_argument("--data-dir", help="SysMoBench data folder (traces) for conformance")
        parser.add_argument("--json", action="store_true", help="print JSON")
        parser.add_argument("--phases", default=",".join(PHASES), help="comma-separated subset")

    def handle(self, *args, **options):
        spec_text = _read(options["spec"])
        cfg_text = _read(options["cfg"]) if options["cfg"] else None
        phases = _phases(options["phases"])
        contract = _contract(options["task"])
        adapter = _adapter(options["adapter"], contract)
        windows = []
        if "conformance" in phases and contract.has_traces:
            windows = _windows(contract, options["data_dir"] or settings.SYSMOBENCH_DATA_DIR)
        problem = pipeline.cfg_problem(cfg_text)
        if problem:
            raise CommandError(f"the cfg cannot be read: {problem}")
        report = pipeline.score_spec(
            spec_text, contract, windows, adapter, cfg_text=cfg_text, phases=phases
        )
        result = report.to_dict()
        if report.overall is None:
            del result["fingerprint"]  # a partial run's figures are not an official score
        if options["json"]:
            self.stdout.write(json.dumps(result, indent=2, default=str))
        else:
            self.stdout.write(render(result))


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read {path}: {exc}") from exc


def _phases(value: str) -> list[str]:
    try:
        return pipeline.select_phases(p.strip() for p in value.split(",") if p.strip())
    except ValueError as exc:
        raise CommandError(str(exc)) from exc


def _contract(slug: str):
    try:
        return load_contract(slug)
    except (ContractError, FileNotFoundError, OSError) as exc:
        raise CommandError(f"task {slug!r}: {exc}") from exc


def _adapter(path: str | None, contract):
    if not path:
        return None
    try:
        return parse_adapter(_read(path), contract, file=path)
    except ContractError as exc:
        raise CommandError(str(exc)) from exc


def _windows(contract, data_dir) -> list[dict]:
    try:
        return cut_windows(contract, data_dir)
    except (WindowFormatError, OSError) as exc:
        raise CommandError(
            f"cannot cut windows for {contract.slug} from {data_dir}: {exc}"
        ) from exc


# ----------------------------------------------------------------------------- text output


def render(result: dict) -> str:
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


def _phase_lines(phase: dict) -> list[str]:
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
    return lines


def _action_line(phase: str, action: dict) -> str:
    detail = action["detail"]
    if phase == "runtime":
        error = " ERROR" if detail.get("error") else ""
        return f"{action['action']}: fired {detail.get('generated')}{error}"
    return f"{action['action']}: {action['passed']}/{action['total']}"
