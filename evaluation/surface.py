"""The scorer as the site sees it: every name `leaderboard/` and `config/` may use, and no other.

Why "surface": this module is the outside of the library, the part the site touches. It adds no
behaviour (each name is defined where it belongs: the orchestrator in `pipeline`, the weights in
`scoring`, the docker backend in `backends/container`, ...), so it is not a facade with logic of
its own, and "api" is already the site's JSON API (`leaderboard/api/`). The scorer's other ways
in are not the site's: `python -m evaluation score` (`cli`, the scorer image's entry point) and
`python -m evaluation.upload.lint_process` (the upload check's child interpreter).

An import-linter contract (`pyproject.toml`, docs/ARCHITECTURE.md "Layers") lets the site import
no other `evaluation` module, so a name the site starts to need is added here, in its group. The
one exception is the site's data layer (`leaderboard/models/`), which every Django process loads:
it takes the weights from the leaf `evaluation.scoring` rather than load the whole scorer (the
figures are in docs/decisions/0001-scorer-is-django-free.md).
"""

from __future__ import annotations

# Running a container of the scorer image per run (settings.SCORER_BACKEND = "docker"), finding
# the ones a dead worker left behind, and whether a process still exists (the reaper).
from evaluation.backends.container import (
    ContainerError,
    ContainerSettings,
    pid_alive,
    reap_containers,
    score_in_container,
)

# `manage.py score` is `python -m evaluation score` with the site's folders; `export_windows`
# writes windows as the scorer image reads them.
from evaluation.cli import InputError, add_score_arguments, score_files, write_windows

# The stored shapes of a phase's details, read back by the run page, exports and compare.
from evaluation.details import (
    ActionDetail,
    ConformanceDetails,
    CounterexampleState,
    InvariantDetails,
    PhaseDetails,
    Specificity,
    SyntaxDetails,
    TlcError,
    WindowDetail,
)

# Task contracts and submitters' adapters, read from tasks_data/.
from evaluation.inputs.contracts import (
    Adapter,
    Contract,
    ContractError,
    Traces,
    load_all_contracts,
    load_contract,
    parse_adapter,
)

# The public specs of a task (its reference and mutants), for the near-duplicate flag.
from evaluation.inputs.references import public_specs

# Scoring a spec in-process: gating, the composite, the fingerprint.
# What a release records of the scorer, and the windows hash the fingerprint records.
from evaluation.pipeline import (
    SCORER_VERSION,
    PhaseCrashed,
    ScoreReport,
    score_spec,
    scorer_identity,
    windows_hash,
)

# What each window and invariant earns (the stored `credit` column; pages read it, not reasons).
from evaluation.results import CREDITS, Credit, InfrastructureFailure, PhaseOutcome

# The official phases, weights and cell rule (the board, the models and the scorer share them).
from evaluation.scoring import (
    NOT_APPLICABLE,
    OFFICIAL_WEIGHTS,
    PHASE_WEIGHTS,
    PHASES,
    TIMEOUT,
    TIMEOUT_RULE,
    cell_score,
    normalise_weights,
)

# The text `manage.py score` prints (as `python -m evaluation score` does).
from evaluation.textreport import render as render_report

# The line numbers a SANY/TLC message points at, and the sweep of sandbox directories a killed
# worker left behind (the reaper).
from evaluation.tla.messages import lines_in
from evaluation.tla.sandbox import sweep_abandoned_run_dirs

# A spec's shape with the names taken out, and how alike two are (the near-duplicate flag).
from evaluation.tla.shape import NEAR_DUPLICATE, Shape, similarity, spec_shape

# TLC's value notation, read so that run pages show counterexamples in the windows' notation.
from evaluation.tla.tlcvalue import ModelValue, TlaSet, TlcValueError, parse_tlc_value

# The upload check: the linear pre-scan in the web process, the rest in a child interpreter.
from evaluation.upload.lint_process import CheckOutcome, check_isolated
from evaluation.upload.prescan import first_problem as prescan_problem
from evaluation.upload.prescan import unstorable

# Trace corpora cut into windows (importing a task's traces).
from evaluation.windows import (
    CutResult,
    WindowFormatError,
    cut_with_summary,
    cutter_version,
    trace_base,
    trace_files,
)
from evaluation.windows.heldout import cut_heldout, heldout_files
from evaluation.windows.stored import read_bytes as read_trace_bytes
from evaluation.windows.stored import read_text as read_trace_text
from evaluation.windows.window import State, Window

__all__ = [
    "ActionDetail",
    "Adapter",
    "CREDITS",
    "CheckOutcome",
    "ConformanceDetails",
    "ContainerError",
    "ContainerSettings",
    "Contract",
    "ContractError",
    "CounterexampleState",
    "Credit",
    "CutResult",
    "InfrastructureFailure",
    "InputError",
    "InvariantDetails",
    "ModelValue",
    "NEAR_DUPLICATE",
    "NOT_APPLICABLE",
    "OFFICIAL_WEIGHTS",
    "PHASES",
    "PHASE_WEIGHTS",
    "PhaseCrashed",
    "PhaseDetails",
    "PhaseOutcome",
    "SCORER_VERSION",
    "ScoreReport",
    "Shape",
    "Specificity",
    "State",
    "SyntaxDetails",
    "TIMEOUT",
    "TIMEOUT_RULE",
    "TlaSet",
    "TlcError",
    "TlcValueError",
    "Traces",
    "Window",
    "WindowDetail",
    "WindowFormatError",
    "add_score_arguments",
    "cell_score",
    "check_isolated",
    "cut_heldout",
    "cut_with_summary",
    "heldout_files",
    "cutter_version",
    "lines_in",
    "load_all_contracts",
    "load_contract",
    "normalise_weights",
    "parse_adapter",
    "parse_tlc_value",
    "pid_alive",
    "prescan_problem",
    "public_specs",
    "reap_containers",
    "render_report",
    "score_files",
    "score_in_container",
    "score_spec",
    "scorer_identity",
    "similarity",
    "spec_shape",
    "sweep_abandoned_run_dirs",
    "read_trace_bytes",
    "read_trace_text",
    "trace_base",
    "trace_files",
    "unstorable",
    "windows_hash",
    "write_windows",
]
