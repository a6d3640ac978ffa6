"""P2 runtime: which actions of Next fire without an evaluation error, under pinned constants.

Design (deterministic, unlike SysMoBench's random simulations): this TLC has no `-num`, so a
`-simulate` run only ends on an error or a kill and then prints no coverage. Instead TLC runs a
breadth-first check with one worker under a generated state constraint
`TLCGet("level") < depth /\\ TLCGet("distinct") < max_states`. BFS order with one worker is
fixed, and `-seed`/`-fp` (budgets.runtime.seed) fix what `RandomElement` draws, so the explored
region, the per-action counts and the verdict are the same on every run. The check always ends
("0 states left on queue"): the verdict depends on the spec, the contract and these work bounds,
never on how fast the machine is. The wall budget is only a safety net: reaching it raises
InfrastructureFailure (the scoring stops, no score is given). The bounds are recorded in the
details and the fingerprint. States so
large that the queue outgrows the scratch cap (`budgets.runtime.scratch_mb`) end as status
`error` with the cap named in `details["error"]["note"]`. Only a completed exploration is
scored: an error no action can be blamed for makes the phase `error` with TLC's own message.
Why a bounded BFS: docs/decisions/0010-p2-bounded-bfs.md; P4 checks safety on this same
bounded region (`bound_definition`).

Actions of Next are TLC's own decomposition, read from its coverage report (TLC_COVERAGE_NEXT): one
entry per disjunct, named after the innermost operator (`\\E t : Acquire(t)` -> Acquire), inline
disjuncts as `Next` with their position, read from a probe run that explores nothing. Every
later run watches each action's steps (`firing.py`): an action counts when it generated a
state and a step of it changed what the contract observes (or hidden state an action that
counts reads); one whose steps change no variable at all only stutters and is left out. When
evaluation fails (exit FAILURE_SPEC_EVAL) the error positions are mapped to the action whose
definition contains them (or to the actions that use the failing helper); that action is counted
as an error, made FALSE in place (never evaluated), and TLC runs again until a run is clean.
P2 = actions that count / actions not left out.
"""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

from evaluation.details import (
    RuntimeActionDetail,
    RuntimeDetails,
    RuntimeSettings,
    TlcError,
    WorkBound,
)
from evaluation.inputs import adapter_text
from evaluation.inputs.adapter_check import called_operators
from evaluation.inputs.contracts import Adapter, Contract, adapter_with_cfg
from evaluation.inputs.tlc_cfg import parse_cfg
from evaluation.phases import firing
from evaluation.phases._common import limits_for, raise_if_timed_out, safety_net_reached
from evaluation.phases.firing import CoveredAction
from evaluation.results import ActionOutcome, PhaseOutcome, PhaseStatus
from evaluation.tla import assumptions, sandbox
from evaluation.tla import messages as msg
from evaluation.tla.codes import EC, MP
from evaluation.tla.layout import spec_first
from evaluation.tla.parsed import ParsedSpec, spec_of
from evaluation.tla.sandbox import Limits, ToolRun
from evaluation.tla.splitter import Listing

# Every name P2 generates beside the spec is `_<stem>_<nonce>` (`firing.Observer.name`), so no
# identifier or module name of a spec can collide with one; these are the stems.
WRAPPER = "Runtime"
# The scorer's own work bounds on P2 (docs/decisions/0004-work-bounds-not-time.md), beside the
# contract's depth and max_states: a spec whose evaluation exceeds one gets a verdict on its first
# attempt (P2 = 0, `work_bound` in the details), never a retry. TLC counts the states it generates
# (initial states included: the distinct-states constraint prunes them but TLC still enumerates
# every one) in a register of a generated module; what TLC cannot count (an ASSUME, a constant, one
# state's guard) is bounded by the JVM's own CPU seconds, spent over all of P2's runs. Honest specs
# are far below both (the reference specs: a few thousand states, a few CPU seconds); the CPU bound
# is half P2's default 300 s net, so on a machine twice as loaded the verdict still comes first.
WORK = "RuntimeWork"
WORK_COUNT = "WorkCount"
WORK_REGISTER = 0  # the marks module uses registers 1.. (`firing.marks_module`)
MAX_GENERATED = 2_000_000
WORK_CPU_SECONDS = 150.0
# TLC writes positions two ways: "line 8, col 3 to line 8, col 9 of module M" in error texts and
# "Line 8, column 3 to line 8, column 9 in M" in the nested-expression list (TLC_NESTED_EXPRESSION).
_LOC = re.compile(
    r"[Ll]ine (\d+), col(?:umn)? (\d+) to line (\d+), col(?:umn)? (\d+) (?:of module|in) (\w+)"
)
_ACTION = re.compile(
    r"^<(\S+) line (\d+), col (\d+) to line (\d+), col (\d+) of module (\w+)"
    r"(?: \((\d+) (\d+) (\d+) (\d+)\))?>: (\d+):(\d+)"
)
_DISTINCT = re.compile(r"(\d+) distinct states found")
# The probe's constraint: no state is explored, so TLC only reports its decomposition of Next.
PROBE_BOUND = "Probe"
NO_CHANGE = "fires, but never changes what the contract observes"
WATCH_ERROR = (
    "P2 could not compare the two states of a step: the adapter's variable mappings cannot be "
    "evaluated in a state the spec reaches"
)
STUTTERS = (
    "only stutters: no step of it changes any variable, so it is not a step of the system and "
    "P2 leaves it out"
)
NOT_LOCATED = "fires, but P2 could not find the action in the spec text to watch its steps"


def runtime_passed(outcome: PhaseOutcome) -> bool:
    """Gate for later phases (docs/BENCHMARK_RULES.md §1): something fired without an error."""
    return outcome.status == "ran" and (outcome.score or 0) > 0


def check_runtime(
    spec: str | ParsedSpec,
    contract: Contract,
    cfg_text: str | None = None,
    adapter: Adapter | None = None,
) -> PhaseOutcome:
    """`adapter` assigns the constants the contract does not pin and names the behaviour;
    `cfg_text` (a submitter's TLC cfg) completes it when the caller has not merged it yet."""
    started = time.monotonic()
    parsed = spec_of(spec)
    spec_text, listing = parsed.text, parsed.listing
    module: str = listing.module or contract.module or "Spec"
    adapter = _adapter(adapter, contract, cfg_text, parsed)
    settings = _settings(contract, adapter, listing, spec_text)
    details = _details(module, settings)
    refused = sandbox.precheck_spec(parsed, contract.extends_allowed, module)
    if refused or listing.module is None:
        details["error"] = "; ".join(refused) or "no MODULE header"
        return _outcome("error", 0.0, details, [], started)
    limits = limits_for(contract, "runtime")
    deadline = started + limits.wall_seconds
    args: list[str] = sandbox.deterministic_args(
        ["-coverage", "1"] + (["-deadlock"] if settings["deadlock"] == "allowed" else []),
        settings["seed"],
    )
    details["tlc_flags"] = args
    observer = firing.observer_for(contract, adapter, parsed, listing.variables)
    details["observed"] = [name for name, _ in observer.observed]
    runs = _Runs(parsed, module, settings, adapter, observer, args, limits, deadline)
    # The probe explores nothing: its coverage report is TLC's decomposition of Next, which
    # says where each action is in the spec so that its steps can be watched.
    probe = runs.run(spec_text, None, probe=True)
    if runs.exceeded is not None:
        return _over_work_bound(probe, runs.exceeded, details, started)
    universe = _coverage(probe.messages, module)
    name_inline(universe or [], spec_text, listing)
    # No decomposition: TLC stopped before exploring (a parse error, Init, an ASSUME); the
    # real run stops at the same point and says why.
    tags = {i + 1: a for i, a in enumerate(universe)} if universe else None
    failed: dict[str, TlcError] = {}
    located: set[int] = set()
    while True:
        text = spec_text
        if tags is not None:
            live = {k: a for k, a in tags.items() if a["key"] not in failed}
            dead = [a for a in tags.values() if a["key"] in failed]
            text, located = firing.instrument(parsed, live, dead, observer)
        run = runs.run(text, tags)
        details["tlc_version"], details["runs"], details["flags"] = (
            run.version,
            runs.count,
            run.flags,
        )
        if runs.exceeded is not None:
            return _over_work_bound(run, runs.exceeded, details, started)
        coverage = _coverage(run.messages, module)
        universe = universe if universe is not None else coverage
        if tags is None or not _run_again(run, runs, coverage, universe, listing, module, failed):
            break
    details["compared_printed_values"] = runs.safe
    marks = firing.read_marks(run.output, observer) if tags is not None else {}
    located_tags = {k: a for k, a in (tags or {}).items() if k in located}
    verdicts = firing.verdicts(parsed, located_tags, marks, observer)
    outcome = _finish(run, universe or [], coverage, failed, details, started, verdicts)
    _explain_assumptions(details, run, parsed, contract, adapter)
    _explain_watch_error(details, observer)
    # TLC names the generated modules in its messages: without the run's nonce, the stored
    # details are the same on every scoring of the spec.
    _mask(outcome.details, observer.nonce)
    for action in outcome.actions:
        _mask(action.detail, observer.nonce)
    return outcome


def _run_again(
    run: ToolRun,
    runs: _Runs,
    coverage: list[CoveredAction] | None,
    universe: list[CoveredAction] | None,
    listing: Listing,
    module: str,
    failed: dict[str, TlcError],
) -> bool:
    """After a watched run: whether to run again, because the watcher itself failed (once,
    comparing printed values) or because an action failed to evaluate (recorded in `failed`,
    and the next run goes on without it while some action is left)."""
    if run.exit_code != EC.ExitStatus.FAILURE_SPEC_EVAL:
        return False
    if firing.failed_in_watcher(run.messages, runs.observer):
        if runs.safe:
            return False
        runs.safe = True  # compare printed values: slower, but never raises
        return True
    if not coverage:
        return False
    blamed = _blame(run.messages, coverage, listing, module, failed)
    if not blamed:
        return False
    error = _error_detail(run.messages)
    for key in blamed:
        failed[key] = error
    return not all(a["key"] in failed for a in universe or coverage)  # some action is left


def _mask(details: Any, nonce: str) -> None:
    """Every string inside `details` (dicts and lists, changed in place) without `nonce`."""
    stack = [details]
    while stack:
        node = stack.pop()
        keys = node.keys() if isinstance(node, dict) else range(len(node))
        for key in list(keys):
            value = node[key]
            if isinstance(value, str) and nonce in value:
                node[key] = value.replace(nonce, "")
            elif isinstance(value, dict | list):
                stack.append(value)


def _explain_watch_error(details: RuntimeDetails, observer: firing.Observer) -> None:
    error = details.get("error")
    if isinstance(error, dict) and observer.watch_module in (error.get("message") or ""):
        error["message"] = f"{WATCH_ERROR}. TLC: {error['message']}"


class _Runs:
    """TLC runs of one P2 check: the same wrapper, bounds and budget; watched or not."""

    def __init__(
        self,
        spec: ParsedSpec,
        module: str,
        settings: RuntimeSettings,
        adapter: Adapter,
        observer: firing.Observer,
        args: list[str],
        limits: Limits,
        deadline: float,
    ) -> None:
        self.spec = spec
        self.module, self.settings, self.adapter = module, settings, adapter
        self.observer = observer
        self.args, self.limits, self.deadline = args, limits, deadline
        self.safety_net = limits.wall_seconds
        self.count = 0
        self.safe = False
        # The work module's Assert names this nonce, which no submitted text can know.
        self.nonce = f"_work_{secrets.token_hex(6)}"
        self.cpu_left = WORK_CPU_SECONDS
        self.exceeded: WorkBound | None = None

    def run(self, text: str, tags: dict[int, CoveredAction] | None, probe: bool = False) -> ToolRun:
        self.count += 1
        left = self.deadline - time.monotonic()
        if left <= 0:
            # No run is started past the net: one more short run could still decide the phase.
            safety_net_reached("runtime", self.safety_net, "no time left for its next TLC run")
        self.limits.wall_seconds = left
        self.limits.work_cpu_seconds = max(self.cpu_left, 0.5)
        watched = tags is not None
        work = self.observer.name(WORK)
        modules = {self.module: text, work: work_module(self.observer, self.nonce, MAX_GENERATED)}
        if tags is not None:
            modules.update(
                firing.modules(self.observer, self.module, self.adapter, tags, self.spec, self.safe)
            )
        names = self.observer
        wrapper = _wrapper(self.module, self.settings, self.adapter, names, watched, probe)
        root = names.name(WRAPPER)
        modules.update(spec_first(root, self.module, wrapper))
        cfg = _cfg(self.settings, self.adapter, names)
        cfg += firing.cfg_line(self.observer) + "\n" if watched else ""
        trusted = (work, self.observer.marks_module) if watched else (work,)
        # The spec's own text is scanned through its parse; an instrumented copy is parsed anew.
        spec = self.spec if text == self.spec.text else None
        run = sandbox.run_tlc(
            modules, root, cfg, self.args, self.limits, spec=spec, trusted=trusted
        )
        self.cpu_left -= run.cpu_seconds or 0.0
        if run.work_exceeded:
            self.exceeded = {"kind": "cpu_seconds", "bound": WORK_CPU_SECONDS}
        elif any(self.nonce in m.text for m in msg.errors(run.messages)):
            self.exceeded = {"kind": "states_generated", "bound": MAX_GENERATED}
        raise_if_timed_out("runtime", run, self.safety_net)
        return run


def work_module(names: firing.Observer, nonce: str, max_generated: int) -> str:
    """Counts every state TLC generates (the constraint is evaluated on each, initial ones
    included) and stops TLC with the nonce past `max_generated`. Integers and the nonce only:
    the one generated module besides the marks that may use TLCSet."""
    r = WORK_REGISTER
    return "\n".join(
        [
            f"---- MODULE {names.name(WORK)} ----",
            "EXTENDS TLC, Naturals",
            f"ASSUME TLCSet({r}, 0)",
            f"{names.name(WORK_COUNT)} == TLCSet({r}, TLCGet({r}) + 1)",
            f'  /\\ (TLCGet({r}) <= {int(max_generated)} \\/ Assert(FALSE, "{nonce}"))',
            "====",
            "",
        ]
    )


def _over_work_bound(
    run: ToolRun, exceeded: WorkBound, details: RuntimeDetails, started: float
) -> PhaseOutcome:
    """The spec's own evaluation went past a work bound: P2 = 0 on this first attempt."""
    what = {
        "states_generated": f"{int(exceeded['bound']):,} states generated (initial states "
        "included)",
        "cpu_seconds": f"{exceeded['bound']:g} CPU seconds of TLC's own evaluation (an ASSUME, "
        "a constant or one state's guard; the time other processes took is not counted)",
    }[exceeded["kind"]]
    details["work_bound"] = exceeded
    details["exit_code"] = run.exit_code
    details["completed"] = False
    details["error"] = {
        "message": f"The spec's evaluation exceeds the work bound of {what}.",
        "codes": [],
        "trace": [],
        "note": run.note,
    }
    return _outcome("error", 0.0, details, [], started)


def _explain_assumptions(
    details: RuntimeDetails,
    run: ToolRun,
    spec: ParsedSpec,
    contract: Contract,
    adapter: Adapter,
) -> None:
    """A false ASSUME stops TLC before any state: the reason quotes it and the constants it
    reads (pinned by the contract, or given by the adapter), after TLC's own words."""
    error = details.get("error")
    if not isinstance(error, dict):
        return
    pinned = dict(contract.constants)
    explained = assumptions.explain(run.messages, spec, pinned, dict(adapter.constants))
    if explained:
        error["message"] = f"{explained} (TLC: {error['message']})"


def _finish(
    run: ToolRun,
    universe: list[CoveredAction],
    coverage: list[CoveredAction] | None,
    failed: dict[str, TlcError],
    details: RuntimeDetails,
    started: float,
    verdicts: dict[str, firing.Verdict],
) -> PhaseOutcome:
    """Only a completed exploration is scored: anything else (an error no action can be blamed
    for, a deadlock under policy `error`, the scratch cap, a run that printed no coverage) makes
    the phase `error` with TLC's own message and P2 = 0."""
    final = msg.last(run.messages, EC.TLC_STATS)
    distinct = _DISTINCT.search(final.text) if final else None
    details["distinct_states"] = int(distinct.group(1)) if distinct else None
    details["exit_code"] = run.exit_code
    details["completed"] = run.status == "ok" and coverage is not None
    unscored = _actions(universe, {}, failed)
    if universe and all(a["key"] in failed for a in universe):
        return _outcome("ran", 0.0, details, unscored, started)
    if run.exit_code == EC.ExitStatus.VIOLATION_DEADLOCK:
        details["deadlock_found"] = _error_detail(run.messages)
    if run.status != "ok":
        error = _error_detail(run.messages)
        if not error["message"]:
            error["message"] = run.note or f"TLC exited with {run.exit_code}"
        details["error"] = {**error, "note": run.note}
        return _outcome("error", 0.0, details, unscored, started)
    if coverage is None:
        details["error"] = {"message": "TLC finished but printed no coverage report"}
        return _outcome("error", 0.0, details, unscored, started)
    if not universe:
        details["error"] = {"message": "TLC reported no actions of Next"}
        return _outcome("ran", 0.0, details, [], started)
    counts = {a["key"]: a for a in coverage}
    actions = _actions(universe, counts, failed, verdicts)
    scored = sum(a.total for a in actions)
    if not scored:
        details["error"] = {
            "message": "every action of Next only stutters: no step changes a variable"
        }
        return _outcome("ran", 0.0, details, actions, started)
    score = sum(a.passed for a in actions) / scored
    return _outcome("ran", round(score, 6), details, actions, started)


def _outcome(
    status: PhaseStatus,
    score: float,
    details: RuntimeDetails,
    actions: list[ActionOutcome],
    started: float,
) -> PhaseOutcome:
    return PhaseOutcome(
        "runtime",
        status,
        score,
        details,
        actions=actions,
        duration_seconds=time.monotonic() - started,
    )


# ----------------------------------------------------------------------------- configuration


def _adapter(
    adapter: Adapter | None, contract: Contract, cfg_text: str | None, spec: ParsedSpec
) -> Adapter:
    if adapter is None:
        adapter = Adapter.identity_for(contract)
    if cfg_text and not adapter.ignored and not adapter.behaviour:
        adapter = adapter_with_cfg(adapter, parse_cfg(cfg_text), contract, spec)
    return adapter


def _details(module: str, settings: RuntimeSettings) -> RuntimeDetails:
    # Key by key: a TypedDict spread (`**settings`) cannot be checked against the optional keys.
    return {
        "module": module,
        "rule": "BFS, 1 worker, level/state-bounded",
        "depth": settings["depth"],
        "max_states": settings["max_states"],
        "seed": settings["seed"],
        "deadlock": settings["deadlock"],
        "constants": settings["constants"],
        "model_values": settings["model_values"],
        "init": settings["init"],
        "next": settings["next"],
    }


def _settings(
    contract: Contract, adapter: Adapter, listing: Listing, spec_text: str
) -> RuntimeSettings:
    # Only constants the spec declares can be assigned (TLC rejects the others).
    pinned = dict(contract.constants)
    # `ToSpec` as the adapter spells it: the wrapper binds it to its generated helper.
    pinned = {k: adapter_text.spec_value(v, adapter, "ToSpec") for k, v in pinned.items()}
    values = {**pinned, **adapter.constants}
    init, nxt = adapter_text.behaviour(adapter, spec_text)
    return {
        "depth": int(contract.budget("runtime", "depth")),
        "max_states": int(contract.budget("runtime", "max_states")),
        "seed": int(contract.budget("runtime", "seed")),
        "deadlock": contract.deadlock or "allowed",
        "constants": {k: v for k, v in values.items() if k in listing.constants},
        "model_values": list(adapter.model_values),
        "init": init,
        "next": nxt,
    }


def _wrapper(
    module: str,
    settings: RuntimeSettings,
    adapter: Adapter,
    names: firing.Observer,
    watched: bool = False,
    probe: bool = False,
) -> str:
    # The bound needs `<` even when the spec does not EXTEND Naturals.
    watch = f", {names.watch_module}" if watched else ""
    work = names.name(WORK)
    lines = [
        f"---- MODULE {names.name(WRAPPER)} ----",
        f"EXTENDS {module}, TLC, Naturals, {work}{watch}",
    ]
    helpers = _helpers(names)
    # The watcher declares the model values when it is there (the wrapper EXTENDS it).
    lines += adapter_text.prelude(adapter, helpers, declare=not watched)
    for name, value in settings["constants"].items():
        sandbox.validate_module_name(name)
        lines.append(f"{_constant(names, name)} == {adapter_text.rewrite(value, helpers)}")
    bound = names.name("Bound")
    if probe:
        bound = names.name(PROBE_BOUND)
        lines.append(f'{bound} == TLCGet("level") < 0')
    lines.append(bound_definition(names.name("Bound"), settings["depth"], settings["max_states"]))
    lines.append(f"{names.name('Constraint')} == {names.name(WORK_COUNT)} /\\ {bound}")
    return "\n".join(lines + ["===="]) + "\n"


def _helpers(names: firing.Observer) -> str:
    """The prefix of the wrapper's value-mapping helpers (`adapter_text.prelude`)."""
    return names.name("h") + "_"


def _constant(names: firing.Observer, constant: str) -> str:
    return f"{names.name('c')}_{constant}"


def bound_definition(name: str, depth: int, max_states: int) -> str:
    """The state constraint bounding P2's exploration; P4 checks safety on the same region.
    Its module must EXTEND TLC and Naturals (or Integers)."""
    return f'{name} == TLCGet("level") < {int(depth)} /\\ TLCGet("distinct") < {int(max_states)}'


def _cfg(settings: RuntimeSettings, adapter: Adapter, names: firing.Observer) -> str:
    lines = [f"CONSTANT {n} <- {_constant(names, n)}" for n in settings["constants"]]
    lines += adapter_text.model_value_cfg(adapter)
    lines += [f"INIT {settings['init']}", f"NEXT {settings['next']}"]
    lines.append(f"CONSTRAINT {names.name('Constraint')}")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- coverage


def _coverage(messages: list[msg.Message], module: str) -> list[CoveredAction] | None:
    starts = [i for i, m in enumerate(messages) if m.code == EC.TLC_COVERAGE_START]
    if not starts:
        return None
    actions: list[CoveredAction] = []
    for message in messages[starts[-1] + 1 :]:
        if message.code == EC.TLC_COVERAGE_END:
            break
        match = _ACTION.match(message.text) if message.code == EC.TLC_COVERAGE_NEXT else None
        if not match or match.group(6) != module and not match.group(6).startswith(module):
            continue
        name, line, col = match.group(1, 2, 3)
        inline = match.group(7)
        span = (
            (int(match.group(7)), int(match.group(8)), int(match.group(9)), int(match.group(10)))
            if inline
            else None
        )
        actions.append(
            {
                "key": f"{name}@{span[0] if span else line}",
                "name": name,
                "line": int(line),
                "col": int(col),
                "inline": span,
                "distinct": int(match.group(11)),
                "generated": int(match.group(12)),
            }
        )
    return actions


def name_inline(universe: list[CoveredAction], spec_text: str, listing: Listing) -> None:
    """Label an inline disjunct TLC names after the relation it sits in (`\\E c \\in pending :
    Send(c)`, whose set is state, is "Next" in its report) by the one action of the spec it
    calls; a disjunct calling several, or none, keeps TLC's name."""
    defined = {d.name for d in listing.definitions}
    lines = spec_text.splitlines()
    for action in universe:
        if action["inline"] is None:
            continue
        first, col, last, end = action["inline"]
        span = lines[first - 1 : last]
        if not span:
            continue
        span[-1] = span[-1][:end]
        span[0] = span[0][col - 1 :]
        called = called_operators("\n".join(span)) & defined
        if len(called) == 1 and action["name"] not in called:
            action["label"] = called.pop()


def _actions(
    universe: list[CoveredAction],
    counts: dict[str, CoveredAction],
    failed: dict[str, TlcError],
    verdicts: dict[str, firing.Verdict] | None = None,
) -> list[ActionOutcome]:
    """An action counts when it generated a state, raised no error and changed what the
    contract observes (`firing.verdicts`); one that only stutters is left out (total 0)."""
    names = [a.get("label", a["name"]) for a in universe]
    verdicts = verdicts or {}
    outcomes = []
    for action, name in zip(universe, names, strict=True):
        key = action["key"]
        seen = counts.get(key)
        generated = seen["generated"] if seen else 0
        verdict = verdicts.get(key)
        label = name if names.count(name) == 1 else key
        detail: RuntimeActionDetail = {
            "line": action["inline"][0] if action["inline"] else action["line"],
            "generated": generated,
            "distinct": seen["distinct"] if seen else 0,
            "fired": generated > 0 or key in failed,
            "error": failed.get(key),
            "changes": verdict.observed if verdict else [],
            "changes_state": verdict.state if verdict else [],
        }
        clean = generated > 0 and key not in failed
        stutters = clean and verdict is not None and not (verdict.observed or verdict.state)
        if clean:
            detail["stutters"] = stutters
            note = STUTTERS if stutters else _note(verdict)
            if note:
                detail["note"] = note
        counted = clean and verdict is not None and verdict.counted
        # An action whose every step leaves every variable as it was is a stuttering step,
        # which [Next]_vars allows anyway: it is not a step of the system and is left out.
        outcomes.append(ActionOutcome(label, int(counted), 0 if stutters else 1, detail))
    return outcomes


def _note(verdict: firing.Verdict | None) -> str:
    if verdict is None:
        return NOT_LOCATED
    if not verdict.counted:
        return NO_CHANGE
    if not verdict.observed:
        return (
            f"changes only state the contract does not observe ({', '.join(verdict.through)}), "
            f"which {verdict.feeds} reads"
        )
    return ""


# ----------------------------------------------------------------------------- errors


def _error_detail(messages: list[msg.Message]) -> TlcError:
    errors = [
        m
        for m in messages
        if m.severity == MP.ERROR and m.code not in (EC.TLC_BEHAVIOR_UP_TO_THIS_POINT,)
    ]
    trace = [m.text for m in messages if m.code == EC.TLC_STATE_PRINT2]
    return {
        "codes": [m.code for m in errors],
        "message": "\n".join(msg.plain_text(m) for m in errors)[:3000],
        "trace": trace[:50],
    }


def _span(action: CoveredAction, listing: Listing) -> tuple[int, int] | None:
    if action["inline"]:
        return action["inline"][0], action["inline"][2]
    for definition in listing.definitions:
        if definition.start_line == action["line"] and definition.name == action["name"]:
            return definition.start_line, definition.end_line
    return None


def _blame(
    messages: list[msg.Message],
    coverage: list[CoveredAction],
    listing: Listing,
    module: str,
    failed: dict[str, TlcError],
) -> set[str]:
    """Actions whose definition contains an error position, else those using the failing
    helper definition (transitively)."""
    text = "\n".join(
        m.text for m in messages if m.severity == MP.ERROR or m.code == EC.TLC_NESTED_EXPRESSION
    )
    lines = [int(m.group(1)) for m in _LOC.finditer(text) if m.group(5) == module]
    live = [a for a in coverage if a["key"] not in failed]
    blamed = set()
    for action in live:
        span = _span(action, listing)
        if span and any(span[0] <= line <= span[1] for line in lines):
            blamed.add(action["key"])
    if blamed:
        return blamed
    helpers = {
        d.name
        for d in listing.definitions
        if any(d.start_line <= line <= d.end_line for line in lines)
    }
    users = listing.referring_to(helpers)
    return {a["key"] for a in live if not a["inline"] and a["name"] in users}
