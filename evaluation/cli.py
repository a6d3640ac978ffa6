"""`python -m evaluation score`: the scorer without Django, and the scorer container's entry point.

    python -m evaluation score --task spin spec.tla [--cfg spec.cfg] [--adapter adapter.yaml]
        [--tasks-dir DIR] [--windows FILE | --data-dir DIR]
        [--heldout-dir DIR | --heldout-windows FILE] [--phases ...] [--json]
        [--progress text|json|none]

All four phases (the default) go through `evaluation.pipeline.score_spec`, exactly as the scoring
job does, so `--json` prints the same document as `manage.py score --json` (which calls
`score_files` below). Inputs are plain files, so a container can mount them read-only:

- the contract comes from `--tasks-dir` (env SYSMOBENCH_TASKS_DIR, default the tasks_data folder
  beside this package);
- the windows come from `--windows`, a canonical windows file (JSON Lines, one window object per
  line, the objects `evaluation.windows` cutters produce and `manage.py export_windows` writes;
  docs/ARCHITECTURE.md, "Interfaces"), or are cut from the SysMoBench data in `--data-dir`
  (env SYSMOBENCH_DATA_DIR, default the shipped corpus/);
- the held-out windows (the official P3; docs/decisions/0012-held-out-traces.md) are cut from
  `--heldout-dir`, a folder in the layout of the data folder that may hold only some tasks (env
  HELDOUT_DATA_DIR; none by default: P3 is then the public one), or read from
  `--heldout-windows`, a canonical windows file (how the container backend passes them).

With `--progress json` each phase's full outcome goes to stderr as one line
`{"event": "phase", "outcome": {...}}` as soon as it finishes: the container backend reads them
to write the run page live. Exit status: 0 scored, 2 bad input (message on stderr), 3 scorer bug.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from evaluation import pipeline, scoring
from evaluation.inputs.contracts import (
    TASKS_DATA_DIR,
    Adapter,
    Contract,
    ContractError,
    load_contract,
    parse_adapter,
)
from evaluation.results import InfrastructureFailure, PhaseOutcome
from evaluation.textreport import render
from evaluation.windows import WindowFormatError, cut_windows
from evaluation.windows.heldout import cut_heldout
from evaluation.windows.ndjson import read_objects
from evaluation.windows.window import Window

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

PHASES = scoring.PHASES
PROJECT_DIR = Path(__file__).resolve().parent.parent
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INFRASTRUCTURE = 4  # the machine ended a check (results.InfrastructureFailure): retry
PROGRESS_EVENT = "phase"


class InputError(Exception):
    """The files or options given cannot be scored; the message says which and why."""


def default_data_dir() -> Path:
    configured = os.environ.get("SYSMOBENCH_DATA_DIR", "").strip()
    return Path(configured) if configured else PROJECT_DIR / "corpus"


def default_heldout_dir() -> Path | None:
    configured = os.environ.get("HELDOUT_DATA_DIR", "").strip()
    return Path(configured) if configured else None


def default_tasks_dir() -> Path:
    configured = os.environ.get("SYSMOBENCH_TASKS_DIR", "").strip()
    return Path(configured) if configured else TASKS_DATA_DIR


def score_files(
    spec: str,
    task: str,
    cfg: str | None = None,
    adapter: str | None = None,
    tasks_dir: str | Path | None = None,
    windows_file: str | None = None,
    data_dir: str | Path | None = None,
    phases: str | Iterable[str] = PHASES,
    on_phase: Callable[[PhaseOutcome], None] | None = None,
    heldout_dir: str | Path | None = None,
    heldout_windows_file: str | None = None,
) -> dict[str, Any]:
    """Score the spec at `spec` for `task`; the result document (`--json`'s output)."""
    spec_text = read_text(spec)
    cfg_text = read_text(cfg) if cfg else None
    problem = pipeline.cfg_problem(cfg_text)
    if problem:
        raise InputError(f"the cfg cannot be read: {problem}")
    chosen = parse_phases(phases)
    contract = load_task(task, tasks_dir or default_tasks_dir())
    parsed_adapter = load_adapter(adapter, contract)
    windows: list[Window] = []
    hidden: list[Window] | None = None
    if "conformance" in chosen and contract.has_traces:
        if windows_file:
            windows = read_windows(windows_file)
        else:
            windows = cut(contract, data_dir or default_data_dir())
        if heldout_windows_file:
            hidden = read_windows(heldout_windows_file)
        else:
            hidden = cut_hidden(contract, heldout_dir or default_heldout_dir())
    report = pipeline.score_spec(
        spec_text,
        contract,
        windows,
        parsed_adapter,
        on_phase,
        cfg_text=cfg_text,
        phases=chosen,
        heldout_windows=hidden,
    )
    result = report.to_dict()
    if report.overall is None:
        del result["fingerprint"]  # a partial run's figures are not an official score
    return result


def read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc


def parse_phases(value: str | Iterable[str]) -> list[str]:
    items = value.split(",") if isinstance(value, str) else value
    try:
        return pipeline.select_phases(p.strip() for p in items if p.strip())
    except ValueError as exc:
        raise InputError(str(exc)) from exc


def load_task(slug: str, tasks_dir: str | Path) -> Contract:
    try:
        return load_contract(slug, tasks_dir)
    except (ContractError, OSError) as exc:
        raise InputError(f"task {slug!r}: {exc}") from exc


def load_adapter(path: str | None, contract: Contract) -> Adapter | None:
    if not path:
        return None
    try:
        return parse_adapter(read_text(path), contract, file=path)
    except ContractError as exc:
        raise InputError(str(exc)) from exc


def read_windows(path: str | Path) -> list[Window]:
    """A canonical windows file: JSON Lines, one window object per line (conformance checks
    each one's shape and values before using it)."""
    try:
        return [cast(Window, obj) for _number, _where, obj in read_objects(Path(path))]
    except (WindowFormatError, OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read windows from {path}: {exc}") from exc


def write_windows(windows: list[Window], path: str | Path | SupportsWrite[str]) -> None:
    """The inverse of `read_windows` (compact JSON, one object per line), to a file or an open
    text stream (standard output)."""
    if not isinstance(path, (str, Path)):
        _write_lines(windows, path)
        return
    with open(path, "w", encoding="utf-8") as handle:
        _write_lines(windows, handle)


def _write_lines(windows: list[Window], handle: SupportsWrite[str]) -> None:
    for window in windows:
        handle.write(json.dumps(window, sort_keys=True, separators=(",", ":")) + "\n")


def cut(contract: Contract, data_dir: str | Path) -> list[Window]:
    try:
        return cut_windows(contract, data_dir)
    except (WindowFormatError, OSError) as exc:
        raise InputError(f"cannot cut windows for {contract.slug} from {data_dir}: {exc}") from exc


def cut_hidden(contract: Contract, folder: str | Path | None) -> list[Window] | None:
    """The task's held-out windows from `folder` (None: no folder, or no traces of the task in
    it). A folder that is not there is a configuration error, never a quiet public-only P3."""
    if folder is None:
        return None
    if not Path(folder).is_dir():
        raise InputError(f"the held-out folder {folder} is not a directory")
    try:
        return cut_heldout(contract, folder)
    except (WindowFormatError, OSError) as exc:
        raise InputError(f"cannot cut held-out windows for {contract.slug}: {exc}") from exc


# ----------------------------------------------------------------------------- command line


def add_score_arguments(parser: argparse.ArgumentParser) -> None:
    """What to score and how: shared by this command line and `manage.py score`."""
    parser.add_argument("spec", help="path to the .tla file")
    parser.add_argument("--task", required=True, help="task slug, e.g. spin")
    parser.add_argument(
        "--cfg",
        help="the submitter's TLC .cfg: constants the contract does not pin, model values, "
        "SPECIFICATION/INIT/NEXT (the rest is reported as ignored)",
    )
    parser.add_argument("--adapter", help="adapter YAML mapping the spec to the task contract")
    parser.add_argument("--windows", help="canonical windows file (JSON Lines) for conformance")
    parser.add_argument("--data-dir", help="SysMoBench data folder to cut windows from instead")
    parser.add_argument(
        "--heldout-dir",
        help="held-out data folder (the data folder's layout, never published): its windows "
        "give the official P3 (env HELDOUT_DATA_DIR)",
    )
    parser.add_argument(
        "--heldout-windows", help="canonical windows file of the held-out set, instead"
    )
    parser.add_argument("--phases", default=",".join(PHASES), help="comma-separated subset")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evaluation")
    commands = parser.add_subparsers(dest="command", required=True)
    score = commands.add_parser("score", help="score a TLA+ spec for a task")
    add_score_arguments(score)
    score.add_argument("--tasks-dir", help="folder of task contracts (env SYSMOBENCH_TASKS_DIR)")
    score.add_argument(
        "--progress",
        choices=("text", "json", "none"),
        default="text",
        help="one line per finished phase on stderr",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result = score_files(
            args.spec,
            args.task,
            cfg=args.cfg,
            adapter=args.adapter,
            tasks_dir=args.tasks_dir,
            windows_file=args.windows,
            data_dir=args.data_dir,
            phases=args.phases,
            on_phase=_progress_writer(args.progress),
            heldout_dir=args.heldout_dir,
            heldout_windows_file=args.heldout_windows,
        )
    except InputError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_BAD_INPUT
    except pipeline.PhaseCrashed as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_INTERNAL
    except InfrastructureFailure as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_INFRASTRUCTURE
    if args.json:
        sys.stdout.write(json.dumps(result, indent=2, default=str) + "\n")
    else:
        sys.stdout.write(render(result))
    sys.stdout.flush()
    return 0


def _progress_writer(mode: str) -> Callable[[PhaseOutcome], None] | None:
    if mode == "none":
        return None

    def write(outcome: PhaseOutcome) -> None:
        if mode == "json":
            line = json.dumps({"event": PROGRESS_EVENT, "outcome": outcome.to_dict()}, default=str)
        else:
            score = "-" if outcome.score is None else f"{outcome.score:.3f}"
            line = f"{outcome.phase}: {outcome.status}, score {score}"
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    return write
