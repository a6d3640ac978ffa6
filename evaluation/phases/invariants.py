"""P4: the task's invariants checked on a spec with TLC, one verdict per invariant.

The contract's invariants are TLA+ definitions over the contract vocabulary (schema variables and
pinned constants). They never go into the spec itself: a spec may define an operator with the
same name (SysMoBench appends the definition and SANY then rejects the module,
docs/BENCHMARK_RULES.md §4). Instead two generated modules sit beside the spec:

- `<prefix>Contract`: the invariant definitions, with the schema variables and the contract
  constants declared as its own VARIABLES and CONSTANTS;
- `<prefix>CheckBody`: EXTENDS the spec, instantiates the contract module with every schema
  variable replaced by the adapter's expression over the spec's state and every constant by its
  pinned value, and names each invariant `<prefix>_<Name> == <prefix>I!<Name>` for the cfg. The
  root TLC is given, `<prefix>Check`, only EXTENDS the spec and the body, so TLC reads the spec
  first (`evaluation/tla/layout.py`).

`<prefix>` is derived from the spec text and checked not to occur in it, so no generated name can
collide with the spec's. Verdicts come from TLC's exit code and the final statistics line (0
states left on queue), never from text the spec could print.

How each invariant is checked follows from its formula's level as SANY computes it, never from
its name or `kind` (a safety property may well be `[][A]_v`):

- constant or state level (0/1): an `INVARIANT`;
- temporal level (3: `[]`, `<>`, `~>`, `WF_`/`SF_`, `[][A]_v`): a `PROPERTY`, whose violation
  (exit 13) is read like a liveness one and which never joins the joint `INVARIANT` run;
- action level (2: primes without `[]`): TLC can check it neither way, so it is an `error`
  asking the contract author to wrap it in `[][...]_vars`.

The level comes from one SANY run per contract (cached) on the contract module plus a probe
module with, per invariant, `(Name)'` (SANY rejects it iff the level is above 1) and
`ENABLED (Name)` (rejected iff above 2), each on its own line so that SANY's level errors, which
it reports all at once with their line, say which probe failed. Instantiating the contract with
the adapter's state expressions keeps these levels. Should SANY reject the contract module itself,
the mode falls back to the kind (safety: INVARIANT, liveness: PROPERTY) and TLC reports the error.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field

from evaluation.inputs import adapter_text
from evaluation.inputs.adapter_check import identifiers, invented_variables
from evaluation.inputs.contracts import Adapter, Contract
from evaluation.phases.fairness import Fairness, spec_fairness
from evaluation.phases.runtime import bound_definition
from evaluation.results import InvariantOutcome, PhaseOutcome
from evaluation.tla import assumptions
from evaluation.tla import messages as msg
from evaluation.tla.layout import spec_first
from evaluation.tla.sandbox import Limits, ToolRun, deterministic_args, run_sany, run_tlc
from evaluation.tla.splitter import list_module

# The modules a contract invariant may use; kept to standard modules so a contract module never
# depends on what the spec EXTENDS.
CONTRACT_EXTENDS = ("Integers", "Sequences", "FiniteSets", "TLC")
# Spec or cfg rejected before any state was explored: every other run would fail the same way.
SETUP_EXITS = (150, 151)
EXIT_SAFETY_VIOLATED = 12
EXIT_LIVENESS_VIOLATED = 13
EXIT_DEADLOCK = 11
# How TLC is asked to check an invariant, from the level of its formula.
INVARIANT, PROPERTY, ACTION = "INVARIANT", "PROPERTY", "action"
# How the reason of an invariant over invented state begins (the run page marks those rows).
NOT_MODELLED = "not modelled by the spec"
ACTION_LEVEL_REASON = (
    "its definition is an action formula (it primes variables but is not under [] ): TLC can "
    "check it neither as an INVARIANT nor as a PROPERTY; the contract must state it as "
    "[][...]_vars to make it a safety property over steps"
)
LEVEL_PROBE_LIMITS = Limits(wall_seconds=60, cpu_seconds=60, heap_mb=256)
INIT, NEXT = "Init", "Next"
NO_FAIRNESS_NOTE = (
    "checked under Init /\\ [][Next]_vars without fairness (the spec's Spec declares no WF_/SF_)"
)
NO_SPEC_NOTE = (
    "checked under Init /\\ [][Next]_vars without fairness (the spec defines no Spec to take "
    "fairness from)"
)
# A replay explores one lasso of a few dozen states: far less than a budget.
LASSO_REPLAY_SECONDS = 60
INIT_DONE = 2190  # "Finished computing initial states: N distinct states generated"
TRACE_CODES = (msg.BEHAVIOR, msg.STATE, 2264, 2122, 2218)
_INIT_STATES = re.compile(r"(\d+) distinct states? generated")
_DISTINCT = re.compile(r"(\d+) distinct states found")
_QUEUE_EMPTY = re.compile(r"\b0 states left on queue")
_STATE_HEAD = re.compile(r"^(\d+):\s*(.*)$")
_LEVEL_ERROR = re.compile(
    r"^line (\d+), col \d+ to line \d+, col \d+ of module (\w+)\s*\n+Level error"
)
_VAR_LINE = re.compile(r"^(?:/\\\s+)?([A-Za-z_][A-Za-z0-9_]*)\s+=\s?(.*)$")


def tlc_flags(contract: Contract) -> list[str]:
    """TLC flags for a P4 run (the sandbox always adds `-workers 1`, so BFS order and therefore
    counterexamples are reproducible; `-fp`/`-seed` fix the fingerprint polynomial, on which
    the liveness checker's counterexample depends, and `RandomElement`)."""
    flags: list[str] = []
    if contract.deadlock == "allowed":
        flags.append("-deadlock")  # in TLC this flag *disables* deadlock checking
    return deterministic_args(flags, contract.budget("invariant", "seed"))


# ---------------------------------------------------------------------------------------------
# The spec's own top-level names (the shared tree-sitter splitter: a parser, not a line regex)


@dataclass(frozen=True)
class SpecNames:
    definitions: frozenset[str]
    constants: frozenset[str]


def spec_names(spec_text: str) -> SpecNames:
    """Top-level definition names and declared CONSTANTS of the spec's root module."""
    listing = list_module(spec_text)
    return SpecNames(frozenset(d.name for d in listing.definitions), frozenset(listing.constants))


def name_prefix(spec_text: str) -> str:
    """A prefix for generated names that occurs nowhere in the spec (so it cannot collide)."""
    salt = 0
    while True:
        digest = hashlib.sha256(f"{salt}:{spec_text}".encode()).hexdigest()[:8]
        prefix = f"SMB{digest}"
        if prefix not in spec_text:
            return prefix
        salt += 1


# ---------------------------------------------------------------------------------------------
# Generated modules and configs


@dataclass(frozen=True)
class CheckModules:
    prefix: str
    modules: dict[str, str]
    root: str
    constants_cfg: str
    fairness: Fairness
    has_spec: bool
    flags: list[str]
    init: str = INIT
    next: str = NEXT
    variables: tuple[str, ...] = ()
    # What a false ASSUME is explained with: the spec, the contract's pinned constants and the
    # adapter's.
    spec_text: str = ""
    spec_module: str = ""
    pinned: dict = field(default_factory=dict)
    given: dict = field(default_factory=dict)

    def check_name(self, invariant: str) -> str:
        return f"{self.prefix}_{invariant}"

    def cfg(self, invariants: list[str] = (), properties: list[str] = (), live=False) -> str:
        r"""Safety runs explore P2's region: INIT/NEXT under P2's bound. Liveness runs take
        Init /\ [][Next]_vars /\ the spec's fairness, unbounded (a bound would cut behaviours
        short and make them look like they stop)."""
        if live:
            behaviour = f"SPECIFICATION {self.prefix}Live"
        else:
            behaviour = f"INIT {self.init}\nNEXT {self.next}\nCONSTRAINT {self.prefix}Bound"
        lines = [self.constants_cfg, behaviour]
        lines += [f"INVARIANT {self.check_name(n)}" for n in invariants]
        lines += [f"PROPERTY {self.check_name(n)}" for n in properties]
        return "\n".join(line for line in lines if line) + "\n"


def build_modules(spec_text: str, contract: Contract, adapter: Adapter) -> CheckModules:
    prefix = name_prefix(spec_text)
    names = spec_names(spec_text)
    contract_module = f"{prefix}Contract"
    root = f"{prefix}Check"
    spec_module = list_module(spec_text).module or contract.module
    init, nxt = adapter_text.behaviour(adapter, spec_text)
    # Fairness is read from the formula the submitter names (cfg SPECIFICATION), else `Spec`.
    spec_name = adapter_text.specification(adapter, set(names.definitions)) or "Spec"
    fairness = spec_fairness(spec_text, init, nxt, spec_name)
    behaviour = _behaviour_text(prefix, spec_text, contract, fairness, init, nxt)
    check_text = _check_module_text(
        root, prefix, contract_module, contract, adapter, spec_module, behaviour
    )
    modules = {
        spec_module: spec_text,
        contract_module: _contract_module_text(contract_module, contract),
        **spec_first(root, spec_module, check_text),
    }
    return CheckModules(
        prefix=prefix,
        modules=modules,
        root=root,
        constants_cfg=_constants_cfg(prefix, names, contract, adapter),
        fairness=fairness,
        has_spec=spec_name in names.definitions,
        flags=tlc_flags(contract),
        init=init,
        next=nxt,
        variables=tuple(list_module(spec_text).variables),
        spec_text=spec_text,
        spec_module=spec_module,
        pinned=dict(contract.constants),
        given=dict(adapter.constants),
    )


def _behaviour_text(
    prefix: str, spec_text: str, contract: Contract, fairness: Fairness, init: str, nxt: str
) -> list:
    """The bound P2 explores within, the spec's variables, and the liveness behaviour."""
    variables = list_module(spec_text).variables
    lines = [
        bound_definition(
            f"{prefix}Bound",
            contract.budget("runtime", "depth"),
            contract.budget("runtime", "max_states"),
        ),
        f"{prefix}Vars == <<{', '.join(variables)}>>",
    ]
    fair = []
    for i, body in enumerate(fairness.conjuncts):
        lines.append(f"{prefix}Fair{i} ==\n{body}")
        fair.append(f"{prefix}Fair{i}")
    live = [init, f"[][{nxt}]_{prefix}Vars", *fair]
    lines.append(f"{prefix}Live == " + " /\\ ".join(live))
    return lines


def _contract_module_text(name: str, contract: Contract) -> str:
    parts = [f"---- MODULE {name} ----", f"EXTENDS {', '.join(CONTRACT_EXTENDS)}"]
    if contract.constants:
        parts.append(f"CONSTANTS {', '.join(contract.constants)}")
    parts.append(f"VARIABLES {', '.join(contract.schema)}")
    parts += [inv.definition for inv in contract.invariants]
    parts.append("====")
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------------------------------------
# The level of each invariant (how TLC must be asked to check it)


def check_modes(contract: Contract) -> dict[str, str]:
    """`{name: INVARIANT | PROPERTY | ACTION}` from the level SANY gives each definition."""
    names = tuple(inv.name for inv in contract.invariants)
    contract_text = _contract_module_text("SMBLevels", contract)
    levels = _probe_levels(contract_text, names)
    if levels is None:
        return {
            inv.name: INVARIANT if inv.kind == "safety" else PROPERTY for inv in contract.invariants
        }
    return levels


# SANY's answers, per contract text. Only answers are kept: a probe that timed out or crashed
# (a loaded machine) is asked again next time, never remembered as "unknown" for the life of
# the worker.
_LEVELS_CACHE: dict[tuple[str, tuple[str, ...]], dict[str, str] | None] = {}
LEVELS_CACHE_SIZE = 64


def _probe_levels(contract_text: str, names: tuple[str, ...]) -> dict[str, str] | None:
    key = (contract_text, names)
    if key in _LEVELS_CACHE:
        return _LEVELS_CACHE[key]
    answered, levels = _ask_levels(contract_text, names)
    if answered:
        if len(_LEVELS_CACHE) >= LEVELS_CACHE_SIZE:
            _LEVELS_CACHE.pop(next(iter(_LEVELS_CACHE)))
        _LEVELS_CACHE[key] = levels
    return levels


def _ask_levels(contract_text: str, names: tuple[str, ...]) -> tuple[bool, dict | None]:
    """(SANY answered, levels); levels None when SANY's answer does not give them."""
    prefix = name_prefix(contract_text)
    probe = f"{prefix}Probe"
    lines = [f"---- MODULE {probe} ----", "EXTENDS SMBLevels"]
    state_line, action_line = {}, {}
    for name in names:
        state_line[len(lines) + 1] = name
        lines.append(f"{prefix}S_{name} == ({name})'")
        action_line[len(lines) + 1] = name
        lines.append(f"{prefix}A_{name} == ENABLED ({name})")
    lines.append("====")
    modules = {"SMBLevels": contract_text, probe: "\n".join(lines) + "\n"}
    run = run_sany(modules, probe, LEVEL_PROBE_LIMITS)
    if run.status == "ok":
        return True, dict.fromkeys(names, INVARIANT)
    if run.status != "error" or not run.output.strip():
        return False, None
    failed = _level_error_lines(run.output, probe)
    if not failed or not failed <= state_line.keys() | action_line.keys():
        return True, None  # the contract module itself is wrong (or SANY said something else)
    modes = {}
    for line, name in state_line.items():
        if line not in failed:
            modes[name] = INVARIANT
    for line, name in action_line.items():
        modes.setdefault(name, PROPERTY if line in failed else ACTION)
    return True, modes


def _level_error_lines(output: str, module: str) -> set[int]:
    """Lines of `module` with a SANY level error; {-1} when some other error is reported."""
    section = output.split("*** Errors:", 1)[-1] if "*** Errors:" in output else ""
    blocks = [b.strip() for b in re.split(r"\n\s*\n(?=line \d+, col)", section)][1:]
    lines: set[int] = set()
    for block in blocks:
        match = _LEVEL_ERROR.match(block)
        lines.add(int(match.group(1)) if match and match.group(2) == module else -1)
    return lines


def _check_module_text(
    name, prefix, contract_module, contract: Contract, adapter, spec_module: str, behaviour
) -> str:
    # TLC and Naturals for the bound (TLCGet, <), as in P2's wrapper.
    parts = [f"---- MODULE {name} ----", f"EXTENDS {spec_module}, TLC, Naturals"]
    parts += adapter_text.prelude(adapter, prefix)
    parts += behaviour
    for const, value in {**contract.constants, **adapter.constants}.items():
        parts.append(f"{prefix}K_{const} == {adapter_text.rewrite(value, prefix)}")
    for const, value in contract.constants.items():
        # What the spec gets: the pinned value in the spec's own values (the adapter's mapping).
        spec_side = adapter_text.spec_value(value, adapter, f"{prefix}ToSpec")
        parts.append(f"{prefix}S_{const} == {spec_side}")
    substitutions = [
        f"{v} <- ({adapter_text.rewrite(adapter.variables.get(v, v), prefix)})"
        for v in contract.schema
    ]
    substitutions += [f"{c} <- {prefix}K_{c}" for c in contract.constants]
    parts.append(
        f"{prefix}I == INSTANCE {contract_module} WITH\n    " + ",\n    ".join(substitutions)
    )
    parts += [f"{prefix}_{inv.name} == {prefix}I!{inv.name}" for inv in contract.invariants]
    parts.append("====")
    return "\n".join(parts) + "\n"


def _constants_cfg(prefix, names: SpecNames, contract: Contract, adapter: Adapter) -> str:
    # Only constants the spec declares can be assigned; an undeclared one stays out of the cfg
    # (TLC would reject it), and a declared one with no value is reported by TLC as an error.
    values = {**contract.constants, **adapter.constants}
    lines = [
        f"CONSTANT {c} <- {prefix}{'S' if c in contract.constants else 'K'}_{c}"
        for c in values
        if c in names.constants
    ]
    lines += adapter_text.model_value_cfg(adapter)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Reading TLC's answer


def parse_trace(messages: list[msg.Message]) -> list[dict]:
    """TLC's error trace as states `{step, action, vars: {var: value text}}`.

    A lasso ends with `{step, action, back_to: k}` (2122: the behaviour loops back to state k)
    and an infinite stutter with `{step, action: "Stuttering", stuttering: True}` (2218).
    """
    start = max((i for i, m in enumerate(messages) if m.code in (msg.BEHAVIOR, 2264)), default=-1)
    states = []
    for message in messages[start + 1 :]:
        if message.code == msg.STATE:
            states.append(_parse_state(message.text))
        elif message.code == 2122:
            head = _STATE_HEAD.match(message.text.strip())
            label = message.text.split("Back to state:", 1)[-1].strip()
            states.append(
                {
                    "step": len(states) + 1,
                    "action": _action_name(label),
                    "location": label,
                    "back_to": int(head.group(1)) if head else None,
                }
            )
        elif message.code == 2218:
            states.append({"step": len(states) + 1, "action": "Stuttering", "stuttering": True})
    return states


def _parse_state(text: str) -> dict:
    lines = text.strip().splitlines()
    head = _STATE_HEAD.match(lines[0]) if lines else None
    step = int(head.group(1)) if head else 0
    label = head.group(2).strip() if head else ""
    action = _action_name(label)
    variables: dict[str, str] = {}
    current = None
    for line in lines[1:]:
        match = _VAR_LINE.match(line)
        if match and (line.startswith("/\\") or current is None):
            current = match.group(1)
            variables[current] = match.group(2).strip()
        elif current is not None and line.strip():
            variables[current] += "\n" + line.rstrip()
    return {"step": step, "action": action, "location": label, "vars": variables}


def _action_name(label: str) -> str:
    """`<AcquireLock line 7, col 19 to ... of module spin>` -> `AcquireLock`."""
    return label.strip("<>").split(" line ", 1)[0].strip()


def completed_without_error(run: ToolRun) -> bool:
    """TLC finished the whole state space with no error (exit 0 and 0 states left on queue).

    The last 2199 is printed by TLC after evaluation stopped, so a spec's `Print` cannot stand in
    for it; `TLCSet("exit", TRUE)` stops early and leaves states on the queue.
    """
    final = msg.last(run.messages, msg.FINAL_STATS)
    return (
        run.status == "ok"
        and run.exit_code == 0
        and final is not None
        and bool(_QUEUE_EMPTY.search(final.text))
    )


def vacuity(run: ToolRun, min_states: int) -> str:
    """Why a completed run is not a pass although nothing was violated ("" when it is one): it
    explored no state beyond the initial ones, or fewer distinct states than the contract asks.
    A spec whose Next never moves would otherwise satisfy every invariant."""
    init = msg.first(run.messages, INIT_DONE)
    final = msg.last(run.messages, msg.FINAL_STATS)
    initial = _INIT_STATES.search(init.text) if init else None
    distinct = _DISTINCT.search(final.text) if final else None
    if initial is None or distinct is None:
        return "TLC did not report how many states it explored, so the check is not a pass"
    first, found = int(initial.group(1)), int(distinct.group(1))
    if found <= first:
        return (
            f"not a pass: TLC explored no state beyond the {first} initial state(s) "
            "(no step of Next was taken)"
        )
    if found < min_states:
        return (
            f"not a pass: TLC explored only {found} distinct states; the contract asks for at "
            f"least {min_states}"
        )
    return ""


def _error_text(run: ToolRun) -> str:
    """What went wrong, for the submitter: SANY's own text on a parse/semantic error (TLC prints
    it untagged between messages 2220 and 2219), otherwise TLC's own error messages."""
    if msg.first(run.messages, msg.PARSE_FAILED) is not None:
        between = run.output.split("@!@!@ENDMSG 2220 @!@!@", 1)[-1]
        sany = between.split("@!@!@STARTMSG 2219", 1)[0]
        for marker in ("Semantic errors:", "***Parse Error***", "Fatal errors"):
            if marker in sany:
                sany = sany[sany.index(marker) :]
                break
        return "the spec and the contract do not fit together: " + _squeeze(sany)[:1500]
    errors = [msg.plain_text(m) for m in msg.errors(run.messages) if m.code not in TRACE_CODES]
    if errors:
        text = "\n".join(errors)
    else:
        # No tagged error (a crash of the JVM, a limit): TLC's last words, then ours.
        untagged = re.sub(r"@!@!@(START|END)MSG[^\n]*\n?", "", run.output).strip()
        text = "\n".join(filter(None, [untagged[-1200:], run.note]))
    if "is not assigned a value" in text:
        text += (
            " (constants the contract does not pin get their value from the adapter's `constants`)"
        )
    return _squeeze(text)[-1500:]


def _squeeze(text: str) -> str:
    return re.sub(r"\n\s*\n+", "\n", text).strip()


def verdict_from_run(
    name: str,
    kind: str,
    run: ToolRun,
    budget: float,
    mode: str | None = None,
    min_states: int = 2,
) -> InvariantOutcome:
    """One invariant's verdict from a TLC run that checked it alone (as `mode`, by default the
    kind's usual one). Any violation TLC reports is a violation, whatever the mode."""
    mode = mode or (INVARIANT if kind == "safety" else PROPERTY)
    if run.status == "timeout":
        reason = f"no verdict within the {budget:g} s budget for this invariant (counts as failed)"
        return InvariantOutcome(name, kind, "timeout", reason)
    if completed_without_error(run):
        vacuous = vacuity(run, min_states)
        if vacuous:
            return InvariantOutcome(name, kind, "error", vacuous)
        return InvariantOutcome(name, kind, "holds")
    if run.status == "error" and run.exit_code in (EXIT_SAFETY_VIOLATED, EXIT_LIVENESS_VIOLATED):
        trace = parse_trace(run.messages)
        reason = (
            "TLC reached a state that violates it"
            if run.exit_code == EXIT_SAFETY_VIOLATED
            else "TLC found a behaviour of the spec that violates it"
        )
        return InvariantOutcome(name, kind, "violated", reason, trace)
    if run.exit_code == EXIT_DEADLOCK:
        reason = (
            "TLC reached a deadlock before the check completed (the task's deadlock policy is "
            "'error'), so the invariant could not be established"
        )
        return InvariantOutcome(name, kind, "error", reason, parse_trace(run.messages))
    reason = f"TLC could not check it (exit code {run.exit_code}): "
    return InvariantOutcome(name, kind, "error", reason + _error_text(run))


# ---------------------------------------------------------------------------------------------
# The phase


@dataclass
class _Budget:
    """Joint runs share `invariants.wall_seconds`; every invariant left undecided then gets its
    own `per_invariant_seconds`, whatever the joint runs used (so no verdict is lost to another
    invariant's slowness)."""

    joint_deadline: float
    per_invariant: float
    heap_mb: int
    scratch_mb: int
    min_states: int
    runs: list[dict] = field(default_factory=list)
    # Set when TLC rejects the modules or cfg themselves: every run would fail the same way.
    fatal: str = ""

    def joint(self) -> Limits | None:
        left = self.joint_deadline - time.monotonic()
        return self._limits(left) if left >= 1 else None

    def alone(self) -> Limits:
        return self._limits(self.per_invariant)

    def _limits(self, wall: float) -> Limits:
        return Limits(
            wall_seconds=wall,
            cpu_seconds=int(wall * 2) + 5,
            heap_mb=self.heap_mb,
            scratch_mb=self.scratch_mb,
            long_run=True,
        )


def check_invariants(
    spec_text: str, contract: Contract, adapter: Adapter | None = None
) -> PhaseOutcome:
    started = time.monotonic()
    adapter = adapter or Adapter.identity_for(contract)
    excluded = [
        {"name": e.name, "kind": e.kind, "reason": e.reason} for e in contract.excluded_invariants
    ]
    details = {"excluded": excluded, "tlc_flags": tlc_flags(contract)}
    if not contract.invariants:
        details["reason"] = "the task contract defines no checkable invariants"
        return PhaseOutcome("invariant", "n/a", None, details)
    check = build_modules(spec_text, contract, adapter)
    budget = _Budget(
        joint_deadline=started + float(contract.budget("invariant", "wall_seconds")),
        per_invariant=float(contract.budget("invariant", "per_invariant_seconds")),
        heap_mb=int(contract.budget("invariant", "heap_mb")),
        scratch_mb=int(contract.budget("invariant", "scratch_mb")),
        min_states=int(contract.budget("invariant", "min_states")),
    )
    modes = check_modes(contract)
    live = _live_names(contract, modes)
    verdicts = _check_all(check, contract, modes, live, budget)
    outcomes = [verdicts[inv.name] for inv in contract.invariants]
    _not_modelled(outcomes, contract, adapter, spec_text, details)
    note = "" if check.fairness.conjuncts else NO_FAIRNESS_NOTE if check.has_spec else NO_SPEC_NOTE
    for outcome in outcomes:
        if note and outcome.name in live:
            outcome.reason = "; ".join(filter(None, [outcome.reason, note]))
    holds = sum(1 for o in outcomes if o.verdict == "holds")
    details.update(
        {
            "holds": holds,
            "total": len(outcomes),
            "behaviour": (
                f"Init /\\ [][Next]_vars within P2's bound (depth "
                f"{contract.budget('runtime', 'depth')}, "
                f"{contract.budget('runtime', 'max_states')} distinct states)"
            ),
            "liveness_behaviour": "Init /\\ [][Next]_vars /\\ fairness",
            "fairness": [" ".join(c.split()) for c in check.fairness.conjuncts] or "none",
            "fairness_dropped": check.fairness.dropped,
            "check_modes": modes,
            "liveness": sorted(live),
            "runs": budget.runs,
        }
    )
    return PhaseOutcome(
        phase="invariant",
        status=_phase_status(outcomes),
        score=holds / len(outcomes),
        details=details,
        invariants=outcomes,
        duration_seconds=round(time.monotonic() - started, 3),
    )


def _not_modelled(outcomes, contract, adapter, spec_text, details) -> None:
    """An invariant reading a schema variable the adapter maps to an expression over no spec
    variable cannot pass: that state is the adapter's invention, not the spec's."""
    invented = invented_variables(adapter, spec_text, list(contract.schema))
    if not invented:
        return
    details["not_modelled"] = invented
    reads = {inv.name: identifiers(inv.definition.split("==", 1)[1]) for inv in contract.invariants}
    for outcome in outcomes:
        used = sorted(reads.get(outcome.name, set()) & set(invented))
        if used and outcome.verdict == "holds":
            outcome.verdict = "error"
            outcome.reason = (
                f"{NOT_MODELLED}: the adapter maps {', '.join(used)} to an expression "
                "that reads no spec variable, so this invariant cannot be credited"
            )


def _live_names(contract: Contract, modes: dict[str, str]) -> set[str]:
    """Temporal liveness properties: checked under fairness and without P2's bound. Everything
    else (state invariants, `[][A]_v` safety) is checked on P2's bounded region."""
    return {
        inv.name
        for inv in contract.invariants
        if modes[inv.name] == PROPERTY and inv.kind == "liveness"
    }


def _check_all(check, contract: Contract, modes: dict, live: set, budget: _Budget) -> dict:
    kinds = {inv.name: inv.kind for inv in contract.invariants}
    verdicts = {
        name: InvariantOutcome(name, kinds[name], "error", ACTION_LEVEL_REASON)
        for name, mode in modes.items()
        if mode == ACTION
    }
    checkable = [inv.name for inv in contract.invariants if modes[inv.name] != ACTION]
    for group_live in (False, True):
        group = [n for n in checkable if (n in live) == group_live]
        verdicts.update(_check_together(check, kinds, modes, group, group_live, budget))
    for inv in contract.invariants:
        if inv.name not in verdicts:
            verdicts[inv.name] = _check_one(
                check, inv.name, inv.kind, modes[inv.name], inv.name in live, budget
            )
    return verdicts


def _check_together(check, kinds, modes, names: list[str], live: bool, budget: _Budget) -> dict:
    """Invariants in one TLC run while that still separates the verdicts.

    - A clean run (every state explored, no error) means each invariant in it holds (or, when
      it explored nothing beyond Init, that none does: the exploration is the same alone).
    - A safety violation names the invariant in TLC's 2110 message, which a spec cannot forge
      (it contains the generated prefix, a hash of the spec text that the text does not
      contain). BFS explores states in the same order whatever is checked, so the bad state it
      stopped at is also the first an individual run of that invariant would find, with the same
      shortest trace: that invariant is violated with exactly this counterexample, and the rest
      are run together again.
    - A temporal violation (exit 13) does not say which property failed unless only one was in
      the run; otherwise the PROPERTYs are checked one by one, and the INVARIANTs together again.
    - Anything else (timeout, error) says nothing about a single invariant: all that remain are
      checked one by one, each with its own budget.
    """
    verdicts: dict[str, InvariantOutcome] = {}
    remaining = list(names)
    while len(remaining) > 1 and not budget.fatal:
        invariants = [n for n in remaining if modes[n] == INVARIANT]
        properties = [n for n in remaining if modes[n] == PROPERTY]
        cfg = check.cfg(invariants=invariants, properties=properties, live=live)
        run = _run(check, cfg, budget.joint(), budget, f"together: {', '.join(remaining)}")
        if run is None:
            break
        if completed_without_error(run):
            vacuous = vacuity(run, budget.min_states)
            for name in remaining:
                verdicts[name] = InvariantOutcome(
                    name,
                    kinds[name],
                    "error" if vacuous else "holds",
                    vacuous or "checked together with the other invariants",
                )
            break
        violated = _violated_name(check, run, invariants)
        if violated is None and _temporal_violation(run) and len(properties) == 1:
            violated = properties[0]
        if violated is not None:
            verdicts[violated] = verdict_from_run(
                violated, kinds[violated], run, budget.per_invariant, modes[violated]
            )
            remaining.remove(violated)
        elif _temporal_violation(run):
            decided = _replay_lasso(check, kinds, properties, run, budget) if live else {}
            verdicts.update(decided)
            remaining = [n for n in remaining if n not in decided] if decided else invariants
        else:
            break
    return verdicts


def _replay_lasso(check: CheckModules, kinds, properties: list[str], run: ToolRun, budget) -> dict:
    """Which properties of a joint liveness run its counterexample violates, each asked of TLC
    alone on a spec whose only behaviour is that lasso (`lasso_module`). A few seconds each,
    instead of a fresh exploration per property; a property the lasso does not violate, or any
    replay that fails, is left undecided for the next run."""
    module = lasso_module(check, parse_trace(run.messages))
    if module is None:
        return {}
    root = f"{check.prefix}Lasso"
    # The lasso's printed values name record fields too: TLC must still read the spec first.
    modules = {**check.modules, **spec_first(root, check.spec_module, module)}
    # Our trace spec stops at the end of a stuttering lasso: that is no deadlock of the spec.
    flags = check.flags if "-deadlock" in check.flags else ["-deadlock", *check.flags]
    verdicts = {}
    for name in properties:
        limits = budget.joint()
        if limits is None:
            break
        limits.wall_seconds = min(limits.wall_seconds, LASSO_REPLAY_SECONDS)
        limits.cpu_seconds = int(limits.wall_seconds * 2) + 5
        limits.long_run = False
        cfg = check.cfg(properties=[name], live=True).replace(
            f"SPECIFICATION {check.prefix}Live", f"SPECIFICATION {check.prefix}LSpec"
        )
        replay = run_tlc(modules, root, cfg, flags, limits)
        budget.runs.append(
            {
                "checked": f"replay of the joint counterexample: {name}",
                "status": replay.status,
                "exit_code": replay.exit_code,
                "seconds": round(replay.wall_seconds, 3),
            }
        )
        if _temporal_violation(replay):
            outcome = verdict_from_run(name, kinds[name], run, budget.per_invariant, PROPERTY)
            outcome.reason += (
                " (the joint run's counterexample; TLC confirmed that it violates this property "
                "on its own)"
            )
            verdicts[name] = outcome
    return verdicts


def lasso_module(check: CheckModules, trace: list[dict]) -> str | None:
    """A module whose only behaviour is the lasso TLC printed, or None when the trace is not a
    complete lasso over the spec's variables.

    Every step must also be a step of the spec (Init, then Next or a stutter) and the spec's
    fairness is conjoined, so a property this behaviour violates is violated by a fair behaviour
    of the spec itself, whatever the printed values were: a value that does not read back the
    same leaves no behaviour, and a property is then never found violated here."""
    states = [s for s in trace if "vars" in s]
    end = trace[-1] if trace else {}
    variables = list(check.variables)
    if not states or not variables or not (end.get("stuttering") or end.get("back_to")):
        return None
    if any(set(s["vars"]) != set(variables) for s in states):
        return None
    p, n = check.prefix, len(states)
    at = f"{p}At"
    rows = ",\n".join(
        "  <<" + ", ".join(f"({s['vars'][v]})" for v in variables) + ">>" for s in states
    )
    if end.get("stuttering"):
        step = [f"{at} < {n}", f"{at}' = {at} + 1"]
    else:
        back = end["back_to"]
        if not 1 <= back <= n:
            return None
        step = [f"{at}' = IF {at} < {n} THEN {at} + 1 ELSE {back}"]
    pick = [f"{v}' = {p}Trace[{at}'][{i}]" for i, v in enumerate(variables, 1)]
    start = [f"{v} = {p}Trace[1][{i}]" for i, v in enumerate(variables, 1)]
    fair = [f"{p}Fair{i}" for i in range(len(check.fairness.conjuncts))]
    spec = [f"{p}LInit", f"[][{p}LNext]_{p}LVars", f"WF_{p}LVars({p}LNext)", *fair]
    return "\n".join(
        [
            f"---- MODULE {p}Lasso ----",
            f"EXTENDS {check.root}",
            f"VARIABLE {at}",
            f"{p}Trace == <<\n{rows}\n>>",
            f"{p}LVars == <<{at}, {p}Vars>>",
            f"{p}LInit == " + _conj([f"{at} = 1", *start, f"({check.init})"]),
            f"{p}LNext == " + _conj([*step, *pick, f"(({check.next}) \\/ UNCHANGED {p}Vars)"]),
            f"{p}LSpec == " + " /\\ ".join(spec),
            "====",
        ]
    )


def _conj(parts: list[str]) -> str:
    return "\n".join(f"  /\\ {part}" for part in parts)


def _temporal_violation(run: ToolRun) -> bool:
    return run.status == "error" and run.exit_code == EXIT_LIVENESS_VIOLATED


def _violated_name(check: CheckModules, run: ToolRun, names: list[str]) -> str | None:
    if run.status != "error" or run.exit_code != EXIT_SAFETY_VIOLATED:
        return None
    message = msg.last(run.messages, msg.INVARIANT_VIOLATED)
    match = re.search(
        rf"\b{check.prefix}_([A-Za-z0-9_]+) is violated", message.text if message else ""
    )
    return match.group(1) if match and match.group(1) in names else None


def _check_one(check, name: str, kind: str, mode: str, live: bool, budget) -> InvariantOutcome:
    if budget.fatal:
        return InvariantOutcome(name, kind, "error", budget.fatal)
    cfg = (
        check.cfg(invariants=[name], live=live)
        if mode == INVARIANT
        else check.cfg(properties=[name], live=live)
    )
    run = _run(check, cfg, budget.alone(), budget, name)
    if budget.fatal:
        return InvariantOutcome(name, kind, "error", budget.fatal)
    return verdict_from_run(name, kind, run, budget.per_invariant, mode, budget.min_states)


def _run(check, cfg: str, limits: Limits | None, budget: _Budget, label: str) -> ToolRun | None:
    if limits is None:
        return None
    run = run_tlc(check.modules, check.root, cfg, check.flags, limits)
    budget.runs.append(
        {
            "checked": label,
            "status": run.status,
            "exit_code": run.exit_code,
            "seconds": round(run.wall_seconds, 3),
        }
    )
    assumed = assumptions.explain(run.messages, check.spec_text, check.pinned, check.given)
    if assumed:
        budget.fatal = f"TLC could not check it: {assumed} (TLC: {_error_text(run)})"
    elif msg.first(run.messages, msg.PARSE_FAILED) is not None or run.exit_code in SETUP_EXITS:
        budget.fatal = "TLC could not check it: " + _error_text(run)
    return run


def _phase_status(outcomes: list[InvariantOutcome]) -> str:
    verdicts = {o.verdict for o in outcomes}
    if verdicts & {"holds", "violated"}:
        return "ran"
    if "timeout" in verdicts:
        return "timeout"
    return "error"
