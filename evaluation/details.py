"""The JSON shapes the phases record beside their scores, as TypedDicts.

`PhaseOutcome.details`, `ActionOutcome.detail` and `WindowOutcome.detail` (evaluation/results.py)
are stored as they are in the site's JSON columns and exported with every run, so these keys are
a stored format: the phases write them, the run pages, exports and comparisons read them back
(docs/ARCHITECTURE.md, "Interfaces"). A key added here is a key older rows lack, which is why the
readers use `.get`. A leaf module: it imports nothing of the project.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, Required, TypedDict

# An invariant's kind in the task contract (and on every outcome and exclusion recorded).
InvariantKind = Literal["safety", "liveness"]

# Schema variable -> JSON value (windows and the spec's states, as the run pages show them).
JsonState = dict[str, Any]


class RaisedBound(TypedDict):
    """A pinned bound at the value P3 reads it with, and why (`conformance_constants`)."""

    value: str
    reason: str


class ActionSummary(TypedDict):
    """One target action's counts in a P3 check (no window content: safe for a held-out set)."""

    passed: int
    total: int
    failed: int
    undecided: int
    errors: int
    pass_rate: float | None
    zero_tolerance: int | None
    unspecific: bool  # accepts a fair negative window


class ConformanceSummary(TypedDict):
    """One P3 check (public or held-out) as counts only (`phases/heldout.py`): a held-out check's
    windows, states and diagnoses are never stored, served or exported."""

    status: str
    score: float | None
    pooled_rate: float | None  # windows passed / windows
    windows: int
    undecided: int
    windows_sha256: str
    per_action: dict[str, ActionSummary]
    internal_error: bool  # the check raised (a scorer bug): fail closed
    error: NotRequired[str]


class PublicFit(TypedDict):
    """Whether the public P3 exceeds the held-out P3 by more than the margin (the review flag)."""

    flagged: bool
    gap: float  # public pooled rate - held-out pooled rate
    score_gap: float  # public P3 - held-out P3
    margin: float


class CommonDetails(TypedDict, total=False):
    """Keys the pipeline reads or writes on any phase's details."""

    # Runs stored by scorers before 2.1 whose phase ended with status `timeout`: the score it
    # reached, shown and not counted (`evaluation.scoring.TIMEOUT_RULE`).
    score_if_counted: float | None
    # The TLC flags the phase ran with (phases that run TLC); copied into the fingerprint.
    tlc_flags: list[str]
    # P3, whatever its status: the pinned bounds it read at the contract's conformance values.
    conformance_constants: dict[str, RaisedBound]
    # P3 of runs scored since 3.0.0, whatever its status (`phases/heldout.py`): which check gives
    # the official score ("public" without a held-out set), both checks as counts, and the flag;
    # the window rows and diagnoses beside them are the public check's.
    official: Literal["public", "heldout"]
    public: ConformanceSummary
    heldout: ConformanceSummary | None
    fits_public: PublicFit | None


class GateDetails(CommonDetails, total=False):
    """A phase not run (`skipped`: an earlier phase failed its gate; `n/a`: no trace data)."""

    reason: Required[str]


class ErrorDetails(CommonDetails):
    """A phase that refused its inputs before checking anything (status `error`)."""

    error: str


class RefusedValueDetails(ErrorDetails):
    """A phase that stopped on a value it refuses to read (`pipeline.refused_outcome`): the
    spec made TLC print a value deeper than `tla.tlcvalue.MAX_DEPTH`. Not a scorer bug, and
    never a verdict: the phase earns nothing."""

    refused: Literal["value_too_deep"]
    limit: int  # the depth read at most


class CrashedDetails(ErrorDetails):
    """A phase that raised: a scorer bug, shown on the run page (`pipeline.crashed_outcome`)."""

    internal: bool
    traceback: list[str]  # the last frames, formatted


# --------------------------------------------------------------------------------- P1 syntax


class UnicodeSummary(TypedDict):
    """Which standard Unicode symbols the tools were given in ASCII (`tla.unicode`)."""

    symbols_rewritten: int
    lines_realigned: int
    symbols: dict[str, int]  # symbol -> times rewritten
    table: str  # where the symbol table comes from


class WholeModule(TypedDict):
    ok: bool  # SANY accepted the whole module
    messages: list[str]  # why not


class DefinitionRow(TypedDict):
    """One top-level definition, checked in its isolation module."""

    name: str
    line: int
    end_line: int
    verdict: Literal["ok", "error"]
    message: str  # SANY's, when it did not parse


class SyntaxDetails(CommonDetails, total=False):
    module: Required[str]  # the module name SANY was given
    declared_module: Required[str | None]  # the spec's own header (None: no header)
    sany_version: str
    whole_module: WholeModule
    definitions: list[DefinitionRow]
    parsed: int
    total: int
    unicode: UnicodeSummary  # only when a symbol was rewritten


class SyntaxActionDetail(TypedDict):
    line: int
    end_line: int
    message: str


# --------------------------------------------------------------------------------- P2 runtime


class TlcError(TypedDict, total=False):
    """TLC's own report of an error: its message codes, text and the states it printed."""

    codes: list[int]
    message: Required[str]
    trace: list[str]
    note: str  # the sandbox's note on how the run ended


class RuntimeSettings(TypedDict):
    """What P2 explored under (recorded in its details)."""

    depth: int
    max_states: int
    seed: int
    deadlock: str  # the contract's deadlock policy
    constants: dict[str, str]  # constant -> TLA+ value, only those the spec declares
    model_values: list[str]
    init: str
    next: str


class RuntimeDetails(RuntimeSettings, CommonDetails, total=False):
    module: Required[str]
    rule: Required[str]
    # Why the phase is `error`: a refusal before TLC ran (text) or TLC's report.
    error: str | TlcError
    tlc_version: str
    runs: int
    flags: list[str]
    distinct_states: int | None
    exit_code: int | None
    completed: bool
    deadlock_found: TlcError
    observed: list[str]  # the schema variables whose change makes a step count
    compared_printed_values: bool  # `#` raised on values of two kinds: printed values compared
    work_bound: WorkBound  # the spec's own evaluation exceeded it: the verdict, P2 = 0


class WorkBound(TypedDict):
    """A work bound the spec's own evaluation exceeded
    (docs/decisions/0004-work-bounds-not-time.md): a verdict on the first attempt, never a retry.
    kind: `states_generated` (TLC counted them, initial states included) or `cpu_seconds` (what TLC
    cannot count: one expression's evaluation, an ASSUME)."""

    kind: Literal["states_generated", "cpu_seconds"]
    bound: float


class RuntimeActionDetail(TypedDict):
    line: int
    generated: int
    distinct: int
    fired: bool
    error: TlcError | None  # the evaluation error blamed on this action
    changes: list[str]  # schema variables some step of it changed
    changes_state: list[str]  # spec variables some step of it changed
    stutters: NotRequired[bool]  # no step changes any variable: left out of P2
    note: NotRequired[str]  # why it does not count, or what hidden state it counts through


# ----------------------------------------------------------------------------- P3 conformance


class Difference(TypedDict):
    """Where a state of the spec disagrees with the trace: a variable, or one key of it."""

    variable: str
    key: NotRequired[Any]
    trace: Any
    spec: Any


class Successor(TypedDict):
    """A successor the spec allows from the window's pre-state, and how it differs."""

    successor: JsonState
    differences: list[Difference]


class BlockingConjunct(TypedDict):
    """The first conjunct of an action that is false at a window's pre-state (blocking.py)."""

    line: int  # in the spec as submitted
    text: str
    values: dict[str, Any]  # at the pre-state: the variables it reads, its parameters


class SettingConjunct(TypedDict):
    """Where the action's step sets a variable its post-state differs in (syntax only)."""

    variable: str  # the schema variable
    line: int
    text: str


class WindowDetail(TypedDict, total=False):
    pre_state_candidates: int | None  # pre-states the auxiliary-state rule gave the window
    closest: list[Successor]  # failing windows: the nearest successors
    blocking_conjunct: BlockingConjunct  # not enabled: the first false conjunct, by TLC
    setting_conjuncts: list[SettingConjunct]  # post-state differs: where the step sets it
    pre_differences: list[Difference]  # where the mappings of a built pre-state disagree
    hint: str  # undecided and unreachable windows: how a submitter resolves it
    bound: str  # failing windows a pinned bound decided: which, and what lifts it
    frontier_states: int  # failing windows: spec states at the event's position showing its pre
    # failing windows no reachable state reaches: the distinct states of the spec's whole
    # behaviour, all explored, none showing the pre-state or the post-state (whole_behaviour.py)
    unreachable_in: int


class FamilyCount(TypedDict):
    checked: int
    wrongly_accepted: int
    errors: int


class SpecificityExample(TypedDict):
    family: str
    actor: str
    pre_state: JsonState
    post_state: JsonState


class FairSlot(TypedDict):
    slot: str  # `var` or `var[key]`
    negative: Any  # its value in the negative window
    trace: Any  # its value in the real window's post-state


class FairExample(TypedDict):
    """A fair negative window the spec accepted, and why the system never makes it."""

    family: str  # "neg-frame" | "neg-determined"
    actor: str
    input: Any
    pre_state: JsonState
    post_state: JsonState
    changed: list[FairSlot]
    why: str


class FairCount(TypedDict):
    """The fair negatives of one action (they count: one accepted fails the action)."""

    checked: int
    accepted: int
    errors: int
    # Those varying the action's own windows (not the safety ones, which sit at other actions'
    # windows too) that no run evaluated: an evaluation error, a stopped run.
    unevaluated: int
    examples: list[FairExample]


class Specificity(TypedDict):
    """Negative windows the spec accepts: the fair ones count (`fair`), the others are shown."""

    checked: int
    wrongly_accepted: int
    # "neg-frame" | "neg-determined" | "neg-post" | "neg-step" -> counts
    by_family: dict[str, FamilyCount]
    examples: list[SpecificityExample]
    fair: NotRequired[FairCount]  # rows stored before fair negatives have none


class PerActionRow(TypedDict):
    """One target action's line on the P3 scorecard (also its `ActionOutcome.detail`)."""

    passed: int
    total: int
    failed: int
    undecided: int
    errors: int
    specificity: Specificity
    zero_tolerance: int | None  # 1 when every window passes; None without windows
    pass_rate: float | None
    note: NotRequired[str]
    specificity_failure: NotRequired[str]  # why the action fails on its fair negatives


class AuxiliaryState(TypedDict):
    rule: str  # "pinned" | "explored" ("typeok" in runs scored before scorer 2.0.0)
    description: str


class RefusedWindow(TypedDict):
    """The window a refused state mapping invented a value for."""

    action: str
    actor: str
    pre_state: JsonState


class StateMappingRefusal(TypedDict):
    """An adapter state mapping (`state:`) the spec's reachable states did not confirm."""

    variable: str  # the spec variable it maps
    rule: Literal["reads back", "invents nothing"]
    reason: str
    text: NotRequired[str]  # the refusal as one sentence (the run page shows it)
    state: NotRequired[JsonState]  # reads back: the projection of the state it fails on
    spec: NotRequired[Any]  # ... the spec's value there
    mapped: NotRequired[Any]  # ... and the mapping's (invents nothing: its value on the window)
    window: NotRequired[RefusedWindow]  # invents nothing: the window
    value: NotRequired[Any]  # ... and the value no explored state has


class StateMapping(TypedDict):
    """The adapter's state mappings: those credited (they build pre-states) and those refused."""

    credited: list[str]
    refused: list[StateMappingRefusal]
    # Since P3 follows traces (scorer 3.0) no state mapping builds a state: all are ignored.
    ignored: NotRequired[list[str]]
    note: NotRequired[str]


class FailingWindow(TypedDict):
    window_id: str
    action: str
    verdict: str
    reason: str
    closest: list[Successor]
    hint: NotRequired[str]
    blocking_conjunct: NotRequired[BlockingConjunct]
    setting_conjuncts: NotRequired[list[SettingConjunct]]


class FirstFailure(TypedDict):
    window_id: str
    position: int  # 1-based, in its trace
    action: str
    reason: str
    states: int  # spec states at that position that show the event's pre-state
    blocking_conjunct: NotRequired[BlockingConjunct]


class LeftTrace(TypedDict):
    window_id: str  # the last event the spec could not take and not resynchronise after
    position: int
    reason: str


class PickedUp(TypedDict):
    after: str
    at: str


class NarrowedGap(TypedDict):
    window_id: str  # a failed event whose crossing a run's state bound cut short
    steps: int  # the spec's own steps across it that the later runs searched


class TraceFollowed(TypedDict):
    """How far P3 followed one trace (`phases/conformance/timeline.py`)."""

    trace_id: str
    events: int
    passed: int
    failed: int
    undecided: int
    errors: int
    followed: int  # events taken before the first that was not
    resynchronised_at: list[str]  # window ids of failed events the spec picked the trace up after
    # a failed event it could not resynchronise at, and the later event it picked the trace up at
    picked_up_at: list[PickedUp]
    # failed events whose crossing was narrowed to the steps the first state across took
    # (`follow._narrow`): the trace went on from the states within those steps
    narrowed_at: list[NarrowedGap]
    first_failure: NotRequired[FirstFailure]
    left_trace_at: NotRequired[LeftTrace]


class FollowBounds(TypedDict):
    quiet_gap_steps: int
    free_gap_steps: int
    max_gap_steps: int
    resync_steps: int
    max_states_per_run: int
    largest_run_states: int
    work_cpu_seconds: float
    work_bound_reached: bool


class WholeExploration(TypedDict):
    """The run over the spec's whole behaviour that decides events following left undecided
    (whole_behaviour.py): exhaustive or it decided nothing."""

    exhaustive: bool  # every reachable state explored, below the state bound
    distinct_states: int
    unreachable_windows: int  # undecided events it failed: no reachable state shows pre or post


class ConformanceDetails(CommonDetails):
    rule: str
    per_action: dict[str, PerActionRow]
    pooled_rate: float
    undecided: int
    windows: int
    distinct_cases: int
    negative_cases: int
    auxiliary_state: AuxiliaryState
    state_mapping: NotRequired[StateMapping]  # only when the adapter has state mappings
    failing_windows: list[FailingWindow]
    traces: NotRequired[list[TraceFollowed]]
    follow_bounds: NotRequired[FollowBounds]
    whole_exploration: NotRequired[WholeExploration]  # only when following left some undecided
    tlc_runs: int


# ------------------------------------------------------------------------------ P4 invariants


class ExcludedInvariant(TypedDict):
    name: str
    kind: InvariantKind
    reason: str


class InvariantRun(TypedDict):
    checked: str  # which invariants the run checked
    status: str
    exit_code: int | None
    seconds: float


class ReachRun(TypedDict):
    """One TLC run measuring what the spec's bounded behaviour reaches
    (`phases/invariants/reach.py`)."""

    kind: str  # "survey" | "until the next target"
    looking_for: list[str]
    status: str
    exit_code: int | None
    reached: list[str]
    seconds: float


class InvariantCredit(TypedDict):
    rule: str
    windows_rule: bool  # rule a2 and (b) applied (the task has traces)
    reached: list[str]
    not_reached: list[str]
    region: str
    undetermined: str  # why some targets could not be measured ("" when all were)
    runs: list[ReachRun]
    withdrawn: dict[str, str]  # invariant -> why it is not credited
    seconds: float
    # Scorers since 3.0.0 (rule c): invariant -> the share of its point it earns; the actors the
    # traces show acting that the spec's bounded behaviour never moves; why no invariant earns
    # anything ("" when credit can be earned: P3 ran to the end and every actor acts).
    earned: NotRequired[dict[str, float]]
    idle_actors: NotRequired[list[str]]
    withheld: NotRequired[str]


class InvariantDetails(CommonDetails, total=False):
    excluded: Required[list[ExcludedInvariant]]
    reason: str  # n/a: the contract defines no checkable invariants
    # Schema variable -> the adapter's mapping that reads no spec variable.
    not_modelled: dict[str, str]
    # Schema variables the spec does not have and no adapter maps (their invariants unchecked).
    absent: list[str]
    holds: int
    total: int
    behaviour: str
    liveness_behaviour: str
    fairness: list[str] | Literal["none"]
    fairness_dropped: list[str]
    check_modes: dict[str, str]  # invariant -> INVARIANT | PROPERTY | action
    liveness: list[str]
    runs: list[InvariantRun]
    # Which invariants that hold earn their point (`phases/invariants/credit.py`).
    credit: InvariantCredit


class CounterexampleState(TypedDict, total=False):
    """One state of a P4 counterexample; a lasso's last entry loops back instead."""

    step: Required[int]
    action: Required[str]
    location: str
    vars: dict[str, str]  # variable -> TLA+ text as TLC printed it
    back_to: int | None
    stuttering: bool


class NoDetail(TypedDict):
    """A row recorded without detail (an outcome built by hand: tests, reported runs)."""


PhaseDetails = (
    CommonDetails  # an outcome built without details
    | SyntaxDetails
    | RuntimeDetails
    | ConformanceDetails
    | InvariantDetails
    | GateDetails
    | ErrorDetails
    | RefusedValueDetails
    | CrashedDetails
)
ActionDetail = SyntaxActionDetail | RuntimeActionDetail | PerActionRow | NoDetail
