"""The orchestrator: the upload lint in-process, the four phases with their gating, the composite.

The site reaches it, like the rest of the scorer, through `evaluation/surface.py`; the command
line (`cli.py`) and the scorer image's run (`backends/container.py`) call it directly.

Rules (docs/BENCHMARK_RULES.md §1):
- P1 always runs. P2 needs a module that parses (TLC cannot run anything else), P3 and P4 need
  a module that parses *and* an action that fires at runtime; a phase not reached is recorded as
  `skipped` with the reason and scores 0.
- A task without trace data has P3 `n/a` (score None), whatever the gate says: the phase does
  not exist for that task, and it counts 0 in the overall (since 3.0.0: no renormalising over a
  missing phase, exactly as `evaluation.scoring.cell_score`), so a task without traces cannot
  give a high overall from P1, P2 and P4 alone.
- With a held-out set (`heldout_windows`), P3 runs on the public windows and on the held-out
  ones; the official P3 is the held-out one (`phases/heldout.py`).
- Overall = 0.15·P1 + 0.15·P2 + 0.35·P3 + 0.35·P4 (`PHASE_WEIGHTS` in `evaluation/scoring.py`,
  the one definition of the official weights).
- `phases=` scores a subset in the official order; a phase then gates only on the selected phases
  before it, and there is no overall (it would not be the official figure).
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from evaluation.details import CrashedDetails, GateDetails, RefusedValueDetails
from evaluation.inputs.adapter_check import spec_problems
from evaluation.inputs.contracts import Adapter, Contract, adapter_with_cfg
from evaluation.inputs.tlc_cfg import CfgError, parse_cfg
from evaluation.phases import conformance, heldout, invariants, runtime, syntax
from evaluation.phases.invariants import credit, reach
from evaluation.results import InfrastructureFailure, PhaseName, PhaseOutcome
from evaluation.scoring import NOT_APPLICABLE, PHASE_WEIGHTS, PHASES
from evaluation.tla import sandbox, tools, unicode
from evaluation.tla.parsed import ParsedSpec, parse_spec
from evaluation.tla.tlcvalue import TlcValueTooDeep
from evaluation.upload import lint as spec_lint
from evaluation.windows import symmetry
from evaluation.windows.window import Window

# The version of the scoring rules, recorded in every run's fingerprint: a change that can move
# a verdict or a score gets a new one. What each version changed, and why: CHANGELOG.md. Runs
# keep the rules of the version they were scored under.
# 3.3.0: an event (and a negative) is taken by a step of the mapped action that is also a step
# of the spec's Next, unless it carries the trace's message (docs/decisions/0037).
# 3.4.0: an undecided event whose pre-state or post-state no state of the spec's whole behaviour
# shows fails (docs/decisions/0038); no score moves.
# 3.5.0: a failure's resynchronisation or pick-up that the state bound cut short is narrowed to
# the steps the first state across it took, and the trace goes on (docs/decisions/0039).
# 3.5.1: a capped run that ends its trace no longer spends one of the four runs followed on
# from (docs/decisions/0039).
SCORER_VERSION = "3.5.1"


class PhaseCrashed(RuntimeError):
    """Kept for callers that still catch it; `score_spec` no longer raises it: a phase that
    raises becomes an `error` outcome (see `crashed_outcome`) and the run goes on."""

    def __init__(self, phase: str, error: BaseException) -> None:
        super().__init__(f"internal error in the {phase} phase: {type(error).__name__}: {error}")
        self.phase = phase


@dataclass
class ScoreReport:
    outcomes: dict[str, PhaseOutcome]
    overall: float | None  # None when only some phases were scored
    fingerprint: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall,
            "fingerprint": self.fingerprint,
            "conformance": conformance_split(self.outcomes.get("conformance")),
            "phases": {name: asdict(outcome) for name, outcome in self.outcomes.items()},
        }


def conformance_split(outcome: PhaseOutcome | None) -> dict[str, Any] | None:
    """The result's `conformance`: which P3 is official, the public and held-out checks as
    counts, and the flag (None when P3 was not scored)."""
    if outcome is None or "official" not in outcome.details:
        return None
    details = outcome.details
    return {
        "official": details.get("official"),
        "public": details.get("public"),
        "heldout": details.get("heldout"),
        "fits_public": details.get("fits_public"),
    }


def composite(outcomes: dict[str, PhaseOutcome]) -> float:
    """Weighted overall; missing/skipped/failed and `n/a` phases count 0 (as the board's
    `cell_score`: a phase a task lacks is not earned, the other weights are not raised)."""
    return sum(PHASE_WEIGHTS[p] * _score(outcomes.get(p)) for p in PHASES)


def _score(outcome: PhaseOutcome | None) -> float:
    if outcome is None or outcome.score is None:
        return 0.0
    return outcome.score


def skipped(phase: PhaseName, reason: str) -> PhaseOutcome:
    details: GateDetails = {"reason": reason}
    return PhaseOutcome(phase=phase, status="skipped", score=0.0, details=details)


def not_applicable(phase: PhaseName, reason: str) -> PhaseOutcome:
    details: GateDetails = {"reason": reason}
    return PhaseOutcome(phase=phase, status=NOT_APPLICABLE, score=None, details=details)


def lint(spec_text: str, contract: Contract, adapter: Adapter | None = None) -> str:
    """The first problem the upload lint finds in a decoded spec (one specific message), or "".
    In-process: the site calls `check_isolated`, which runs this in a child interpreter."""
    return spec_lint.first_problem(spec_text, contract, adapter)


def select_phases(names: Iterable[str]) -> list[str]:
    """`names` in the official order; ValueError naming the unknown ones (or an empty choice)."""
    chosen = list(names)
    unknown = set(chosen) - set(PHASES)
    if unknown or not chosen:
        raise ValueError(f"unknown phase(s) {sorted(unknown)}; choose from {list(PHASES)}")
    return [p for p in PHASES if p in chosen]


def complete_adapter(
    adapter: Adapter, contract: Contract, spec: str | ParsedSpec, cfg_text: str | None
) -> Adapter:
    """The adapter with the submitter's cfg merged in (raises `CfgError` on a cfg that cannot
    be read: that is bad input, to be refused at upload, not a phase verdict)."""
    if not cfg_text or not cfg_text.strip():
        return adapter
    return adapter_with_cfg(adapter, parse_cfg(cfg_text), contract, spec)


def cfg_problem(cfg_text: str | None) -> str:
    """Why a submitter's cfg cannot be read ("" when it can), for the upload lint and the CLI."""
    try:
        parse_cfg(cfg_text or "")
    except CfgError as exc:
        return str(exc)
    return ""


def adapter_problems(adapter: Adapter, spec_text: str) -> list[str]:
    """Why an adapter cannot be used with this spec (its action mappings must call the spec's
    own actions), for the upload lint; conformance refuses the same adapter with the same text."""
    return spec_problems(adapter, parse_spec(spec_text))


def crashed_outcome(phase: PhaseName, error: BaseException) -> PhaseOutcome:
    """A phase that raised: status `error`, score 0, the reason on the run page. A scorer bug
    must never take the other phases' verdicts down with it."""
    reason = f"internal error in the {phase} phase: {type(error).__name__}: {error}"
    details: CrashedDetails = {
        "error": reason,
        "internal": True,
        "traceback": traceback.format_exception(type(error), error, error.__traceback__)[-6:],
    }
    return PhaseOutcome(phase=phase, status="error", score=0.0, details=details)


def refused_outcome(phase: PhaseName, error: TlcValueTooDeep) -> PhaseOutcome:
    """A phase that stopped on a value the spec made TLC print deeper than the scorer reads:
    status `error`, score 0, the reason typed (`refused`), not a scorer bug."""
    details: RefusedValueDetails = {
        "error": f"the {phase} phase stopped: {error}",
        "refused": error.reason,
        "limit": error.limit,
    }
    return PhaseOutcome(phase=phase, status="error", score=0.0, details=details)


@dataclass
class ScoringContext:
    """One scoring: what every phase reads, and the outcomes of the phases before it."""

    spec: ParsedSpec
    contract: Contract
    adapter: Adapter
    windows: list[Window]
    heldout_windows: list[Window] | None
    outcomes: dict[str, PhaseOutcome] = field(default_factory=dict)


@dataclass(frozen=True)
class Phase:
    """One row of the scorer's table. `requires`: the phases that must pass before it runs
    (among those chosen); `absent`: why the task has no such phase ("" when it has one);
    `blocks`: why a finished outcome stops the phases that require this one ("" when it
    passed)."""

    name: PhaseName
    requires: tuple[PhaseName, ...]
    run: Callable[[ScoringContext], PhaseOutcome]
    blocks: Callable[[PhaseOutcome], str] = lambda outcome: ""
    absent: Callable[[ScoringContext], str] = lambda ctx: ""


def _blocks_unless(
    passed: Callable[[PhaseOutcome], bool], failed: str, check: str, note: str = ""
) -> Callable[[PhaseOutcome], str]:
    """A phase's `blocks`: "" when `passed`, `failed` when it ran and did not pass, else the
    status it ended with."""

    def blocks(outcome: PhaseOutcome) -> str:
        if passed(outcome):
            return ""
        if outcome.status == "ran":
            return failed
        return f"the {check} check ended with status {outcome.status}{note}"

    return blocks


def _no_traces(ctx: ScoringContext) -> str:
    if ctx.contract.has_traces:
        return ""
    return ctx.contract.no_traces_reason or "the task has no trace data"


def _invariants_with_credit(ctx: ScoringContext) -> PhaseOutcome:
    # P4's credit reads what P3 followed (docs/decisions/0013-p4-credit.md).
    checked = invariants.check_invariants(ctx.spec, ctx.contract, ctx.adapter)
    conformed = ctx.outcomes.get("conformance")
    return credit.apply(checked, conformed, ctx.spec, ctx.contract, ctx.adapter, ctx.windows)


# The official order (docs/BENCHMARK_RULES.md §1): TLC runs only a module that parses, and P3
# and P4 need an action that fires.
PHASE_TABLE: tuple[Phase, ...] = (
    Phase(
        "syntax",
        (),
        lambda ctx: syntax.check_syntax(ctx.spec, ctx.contract),
        _blocks_unless(syntax.syntax_passed, "the module does not parse (P1 < 1)", "syntax"),
    ),
    Phase(
        "runtime",
        ("syntax",),
        lambda ctx: runtime.check_runtime(ctx.spec, ctx.contract, adapter=ctx.adapter),
        _blocks_unless(
            runtime.runtime_passed,
            "no action of Next fired without an error (P2 = 0)",
            "runtime",
            " (P2 = 0)",
        ),
    ),
    Phase(
        "conformance",
        ("syntax", "runtime"),
        lambda ctx: official_conformance(
            ctx.spec, ctx.contract, ctx.windows, ctx.heldout_windows, ctx.adapter
        ),
        absent=_no_traces,
    ),
    Phase("invariant", ("syntax", "runtime"), _invariants_with_credit),
)
PHASES_BY_NAME = {phase.name: phase for phase in PHASE_TABLE}


def score_spec(
    spec_text: str,
    contract: Contract,
    windows: list[Window],
    adapter: Adapter | None = None,
    on_phase: Callable[[PhaseOutcome], None] | None = None,
    cfg_text: str | None = None,
    phases: Iterable[str] = PHASES,
    heldout_windows: list[Window] | None = None,
) -> ScoreReport:
    """Score one spec through `phases` (all four by default); `on_phase(outcome)` as each one
    finishes. Only a full run has an overall and a fingerprint. `heldout_windows`: the task's
    held-out windows (None: no held-out set), which give the official P3.

    The spec enters here: its standard Unicode symbols are read as their ASCII spelling
    (`tla.unicode`, same lines), and every phase sees that one text, parsed once
    (`tla.parsed.ParsedSpec`); P1's details and the fingerprint say how many symbols were
    rewritten. The stored spec stays the submitter's."""
    chosen = select_phases(phases)
    spec = parse_spec(spec_text)
    adapter = complete_adapter(adapter or Adapter.identity_for(contract), contract, spec, cfg_text)
    ctx = ScoringContext(spec, contract, adapter, windows, heldout_windows)
    for phase in PHASE_TABLE:
        if phase.name in chosen:
            outcome = _timed(phase, ctx)
            ctx.outcomes[phase.name] = outcome
            if on_phase is not None:
                on_phase(outcome)
    outcomes = ctx.outcomes
    if chosen != list(PHASES):
        return ScoreReport(outcomes=outcomes, overall=None)
    return ScoreReport(
        outcomes=outcomes,
        overall=composite(outcomes),
        fingerprint=fingerprint(
            contract, windows, adapter, cfg_text, outcomes, spec.reading, heldout_windows
        ),
    )


def _outcome(phase: Phase, ctx: ScoringContext) -> PhaseOutcome:
    """The phase's outcome: `n/a` when the task lacks it, `skipped` when a phase it requires did
    not pass (the first such one says why), else its own check."""
    missing = phase.absent(ctx)
    if missing:
        return not_applicable(phase.name, missing)
    for required in phase.requires:
        earlier = ctx.outcomes.get(required)
        gate = PHASES_BY_NAME[required].blocks(earlier) if earlier is not None else ""
        if gate:
            return skipped(phase.name, gate)
    return phase.run(ctx)


def _timed(phase: Phase, ctx: ScoringContext) -> PhaseOutcome:
    """The phase's outcome with its duration; a phase that raises becomes an `error` outcome
    (no phase may abort the run), except an infrastructure failure, which is the machine's."""
    started = time.monotonic()
    try:
        outcome = _outcome(phase, ctx)
    except InfrastructureFailure:
        raise  # the machine's, not the spec's: no outcome of this scoring may stand on it
    except TlcValueTooDeep as exc:
        outcome = refused_outcome(phase.name, exc)
    except Exception as exc:  # noqa: BLE001 - no phase may abort the run
        outcome = crashed_outcome(phase.name, exc)
    if not outcome.duration_seconds:
        outcome.duration_seconds = round(time.monotonic() - started, 3)
    return outcome


def official_conformance(
    spec: ParsedSpec,
    contract: Contract,
    windows: list[Window],
    heldout_windows: list[Window] | None,
    adapter: Adapter,
) -> PhaseOutcome:
    """P3 on the public windows and, when there is one, on the held-out set; each check that
    raises is an internal error of its own, and either one failing fails P3 (fail closed)."""
    probed = symmetry.with_probes(contract, windows)
    public = _guarded(lambda: conformance.check_conformance(spec, contract, probed, adapter))
    if heldout_windows is None:
        return heldout.combine(public, None, windows_hash(probed))
    hidden = symmetry.with_probes(contract, heldout_windows)
    held = _guarded(lambda: conformance.check_conformance(spec, contract, hidden, adapter))
    return heldout.combine(public, held, windows_hash(probed), windows_hash(hidden))


def _guarded(check: Callable[[], PhaseOutcome]) -> PhaseOutcome:
    try:
        return check()
    except InfrastructureFailure:
        raise
    except TlcValueTooDeep as exc:
        return refused_outcome("conformance", exc)
    except Exception as exc:  # noqa: BLE001 - recorded as the phase's internal error
        return crashed_outcome("conformance", exc)


def work_bounds(contract: Contract) -> dict[str, Any]:
    """Per phase, what bounds the exploration its verdicts come from: the contract's bounds and
    the scorer's own caps. Together with the spec and the contract they decide every verdict;
    the wall-clock safety nets (in `budgets`) decide none."""
    runtime_region = {
        "depth": contract.budget("runtime", "depth"),
        "max_states": contract.budget("runtime", "max_states"),
    }
    return {
        "syntax": "none: SANY cannot be bounded by work (a safety net reached is no verdict)",
        "runtime": {
            **runtime_region,
            "seed": contract.budget("runtime", "seed"),
            "max_generated": runtime.MAX_GENERATED,
            "work_cpu_seconds": runtime.WORK_CPU_SECONDS,
        },
        "conformance": {
            **{
                key: contract.budget("conformance", key)
                for key in (
                    "gap_steps",
                    "free_gap_steps",
                    "max_gap_steps",
                    "resync_steps",
                    "max_states",
                    "work_cpu_seconds",
                    "seed",
                )
            },
            "max_tlc_runs": conformance.runner.MAX_RUNS,
            "output_read_bytes": conformance.runner.READ_OUTPUT_BYTES,
        },
        "invariant": {
            # P4 explores P2's region, liveness included.
            **runtime_region,
            "min_states": contract.budget("invariant", "min_states"),
            "seed": contract.budget("invariant", "seed"),
            "reach_max_runs": reach.MAX_RUNS,
            "reach_survey_states": reach.SURVEY_STATES,
        },
    }


def scorer_identity() -> dict[str, str]:
    """The scorer's part of a release (`leaderboard/releases/`): its version and the TLA+
    tools' jar and banners, spelled as the fingerprint spells them so a run's fingerprint can
    be matched to a release. The Java version is left out: it is the machine's, not the
    benchmark's, and the fingerprint still records it."""
    tool = tools.fingerprint()
    return {
        "scorer_version": SCORER_VERSION,
        **{key: tool[key] for key in ("jar_sha256", "tlc_version", "sany_version")},
    }


def windows_hash(windows: list[Window]) -> str:
    """Order-independent sha256 of the windows used (canonical JSON, sorted by window id)."""
    canonical = sorted(json.dumps(w, sort_keys=True, separators=(",", ":")) for w in windows)
    return hashlib.sha256("\n".join(canonical).encode()).hexdigest()


def fingerprint(
    contract: Contract,
    windows: list[Window],
    adapter: Adapter,
    cfg_text: str | None = None,
    outcomes: dict[str, PhaseOutcome] | None = None,
    reading: unicode.AsciiSpec | None = None,
    heldout_windows: list[Window] | None = None,
) -> dict[str, Any]:
    """What a score depends on besides the spec (docs/ARCHITECTURE.md, "Interfaces").

    TLC flags come from each phase's `details["tlc_flags"]` when the phase reports them (the
    phase knows what it ran); P4's are derived from the contract's deadlock policy.
    """
    adapter_text = json.dumps(asdict(adapter), sort_keys=True)
    return {
        "scorer_version": SCORER_VERSION,
        **tools.fingerprint(),
        "task": contract.slug,
        "contract_version": contract.version,
        "windows_sha256": windows_hash(windows),
        "window_count": len(windows),
        # The held-out set's hash and size, never its content (None: scored without one).
        "heldout_windows_sha256": (
            windows_hash(heldout_windows) if heldout_windows is not None else None
        ),
        "heldout_window_count": len(heldout_windows) if heldout_windows is not None else None,
        "adapter": "identity" if adapter.identity else "custom",
        "cfg_ignored": list(adapter.ignored),
        "adapter_sha256": hashlib.sha256(adapter_text.encode()).hexdigest(),
        "tlc_flags": {
            "all": ["-tool", "-workers", "1", "-fp", str(sandbox.FINGERPRINT_INDEX)],
            **{
                phase: outcome.details["tlc_flags"]
                for phase, outcome in (outcomes or {}).items()
                if "tlc_flags" in outcome.details
            },
            "invariant": invariants.tlc_flags(contract),
        },
        # TLC's -seed per phase (every TLC call gets one; see sandbox.deterministic_args).
        "seeds": {
            phase: contract.budget(phase, "seed")
            for phase in ("runtime", "conformance", "invariant")
        },
        "budgets": contract.budgets.as_dict(),
        "work_bounds": work_bounds(contract),
        "cfg_sha256": hashlib.sha256(cfg_text.encode()).hexdigest() if cfg_text else None,
        "weights": dict(PHASE_WEIGHTS),
        # Standard Unicode symbols the tools were given in ASCII (0: the spec was read as sent).
        "unicode_symbols_rewritten": reading.symbols if reading else 0,
    }
