"""What the spec's own behaviour reaches, measured by TLC within P2's bound (for `credit.py`).

A *target* is a schema variable changing in some step, or taking a given string at one of
given paths (any key of a function or position of a sequence, a record field) in some state;
both are read through the adapter, exactly as P4 reads the contract's invariants. TLC runs a
module beside P4's (same prefix, same adapter substitution, same bound): Init prints the
targets each initial state reaches, and a `[][...]_vars` property prints the targets a step
enters that its predecessor did not reach (or the variables it changes). Every target reached
in the region is reached in an initial state or entered by an explored step, so a run that
explores the region to its end shows that the targets it did not print are not reached. The
prints carry a per-run nonce the spec cannot know, and every comparison is made on `ToString`
of the value, so a spec value of another kind is no TLC error.

The first run surveys (prints without stopping, up to SURVEY_STATES distinct states, so that a
small spec is measured in one run); what it cannot settle (it hit the cap, or printed more than
TLC's output keeps) later runs settle, each stopping at the next target it enters.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evaluation.details import ReachRun
from evaluation.inputs import adapter_text
from evaluation.inputs.contracts import Adapter, Contract
from evaluation.phases._common import raise_if_timed_out, safety_net_reached
from evaluation.phases.conformance.vocab import FuncSet, RecordSet, SeqOf, Vocab
from evaluation.phases.invariants.build import (
    CONTRACT_EXTENDS,
    CheckModules,
    absent_variables,
    build_modules,
    without_absent,
)
from evaluation.phases.invariants.verdicts import completed_without_error
from evaluation.tla.codes import EC
from evaluation.tla.layout import spec_first
from evaluation.tla.parsed import ParsedSpec
from evaluation.tla.sandbox import Limits, ToolRun, run_tlc
from evaluation.tla.values import to_tla

MAX_RUNS = 40
SURVEY_STATES = 3000
KEY, FIELD = "key", "field"
# A step into a window value: (KEY,) for any key or position, (FIELD, name) for a record field.
PathStep = tuple[str, ...]
Path = tuple[PathStep, ...]


@dataclass(frozen=True)
class Target:
    """Something the spec's bounded behaviour must show: `var` changing in some step
    (`value` None), or `var` taking the string `value` at one of `paths` in some state."""

    var: str
    value: str | None = None
    paths: tuple[Path, ...] = ()
    # With `value` None: `var[key]` changing (an actor's own slot: that actor acts).
    key: str | None = None

    @property
    def moves(self) -> bool:
        return self.value is None

    def text(self) -> str:
        if self.moves and self.key is not None:
            return f'{self.var}["{self.key}"] changes'
        if self.moves:
            return f"{self.var} changes"
        return f'{self.var} takes "{self.value}"'

    def never(self) -> str:
        """How an unreached target reads after "the spec never ..."."""
        if self.moves and self.key is not None:
            return f'changes {self.var}["{self.key}"]'
        if self.moves:
            return f"changes {self.var} (it keeps the value Init gives it)"
        return f'reaches a state where {self.var} takes "{self.value}"'


def string_atoms(value: Any, vocab: Vocab | None, path: Path = ()) -> set[tuple[Path, str]]:
    """(path, string) for every string inside a window value; a path step is (KEY,) for any
    key of a function or position of a sequence, (FIELD, name) for a record field."""
    if isinstance(value, str):
        return {(path, value)}
    if isinstance(value, list):
        inner = vocab.element if isinstance(vocab, SeqOf) else None
        return {a for item in value for a in string_atoms(item, inner, (*path, (KEY,)))}
    if isinstance(value, dict):
        if isinstance(vocab, FuncSet):
            return {
                a for v in value.values() for a in string_atoms(v, vocab.codomain, (*path, (KEY,)))
            }
        fields = dict(vocab.fields) if isinstance(vocab, RecordSet) else {}
        return {
            a
            for name, v in value.items()
            for a in string_atoms(v, fields.get(name), (*path, (FIELD, name)))
        }
    return set()


def _path_predicate(expr: str, path: Path, value: str, depth: int = 0) -> str:
    if not path:
        return f"ToString({expr}) = {to_tla(to_tla(value))}"
    step, rest = path[0], path[1:]
    if step[0] == KEY:
        k = f"k{depth}"
        inner = _path_predicate(f"{expr}[{k}]", rest, value, depth + 1)
        return f"\\E {k} \\in DOMAIN {expr} : {inner}"
    name = to_tla(step[1])
    inner = _path_predicate(f"{expr}[{name}]", rest, value, depth + 1)
    return f"({name} \\in DOMAIN {expr} /\\ {inner})"


def predicate(target: Target) -> str:
    """The target over the schema variables (the contract module's names)."""
    if target.moves and target.key is not None:
        v, k = target.var, to_tla(target.key)
        return (
            f"({k} \\in DOMAIN {v} /\\ {k} \\in DOMAIN {v}' "
            f"/\\ ToString({v}'[{k}]) # ToString({v}[{k}]))"
        )
    if target.moves:
        return f"ToString({target.var}') # ToString({target.var})"
    value = target.value or ""
    return " \\/ ".join(f"({_path_predicate(target.var, p, value)})" for p in target.paths)


@dataclass
class Reach:
    reached: set[Target] = field(default_factory=set)
    unreached: set[Target] = field(default_factory=set)  # the whole bounded region explored
    undetermined: str = ""  # why the rest could not be measured
    runs: list[ReachRun] = field(default_factory=list)
    region: str = "within P2's bound"  # what was explored, for the reasons


def measure(
    spec: ParsedSpec,
    contract: Contract,
    adapter: Adapter,
    targets: list[Target],
    wanted: Callable[[set[Target]], set[Target]] | None = None,
) -> Reach:
    """Which targets the spec's behaviour reaches within P2's bound (see the module doc).

    The first run surveys: it prints every target a step enters without stopping, over at most
    SURVEY_STATES distinct states, so that a small spec is measured in one TLC run. What it
    cannot settle (it hit the cap, or printed more than TLC's output keeps) the next runs
    settle one stop at a time, looking only for the targets `wanted(reached)` still needs
    (all of them by default)."""
    depth, states = contract.budget("runtime", "depth"), contract.budget("runtime", "max_states")
    reach = Reach(region=f"within P2's bound ({depth} steps, {states} distinct states)")
    if not targets:
        return reach
    # Targets over a variable the spec does not have belong to invariants P4 did not check.
    contract = without_absent(contract, absent_variables(spec, contract, adapter))
    check = build_modules(spec, contract, adapter)
    nonce = secrets.token_hex(6)
    remaining = list(targets)
    # The runs are bounded by work (P2's region, MAX_RUNS); the wall clock is a safety net.
    safety_net = float(contract.budget("invariant", "wall_seconds"))
    deadline = time.monotonic() + safety_net
    while remaining and len(reach.runs) < MAX_RUNS:
        left = deadline - time.monotonic()
        if left < 1:
            safety_net_reached("invariant", safety_net, "while measuring what the spec reaches")
        survey = not reach.runs
        run = _run(check, contract, adapter, remaining, nonce, left, survey)
        raise_if_timed_out("invariant", run, safety_net)
        hits = _hits(run.output, nonce, len(remaining))
        reach.runs.append(
            {
                "kind": "survey" if survey else "until the next target",
                "looking_for": [t.text() for t in remaining],
                "status": run.status,
                "exit_code": run.exit_code,
                "reached": [remaining[i].text() for i in sorted(hits)],
                "seconds": round(run.wall_seconds, 3),
            }
        )
        reach.reached.update(remaining[i] for i in hits)
        remaining = [t for i, t in enumerate(remaining) if i not in hits]
        if wanted is not None:
            remaining = [t for t in remaining if t in wanted(reach.reached)]
        completed = completed_without_error(run)
        if completed and not run.truncated:
            reach.unreached.update(remaining)
            remaining = []
        elif not (completed or _stopped(run, check.prefix)) or not (survey or hits):
            # Anything else than the end of the region or our own stop says nothing.
            reach.undetermined = "TLC could not measure the spec's behaviour: " + (
                run.note or f"exit code {run.exit_code}"
            )
            break
    if remaining and not reach.undetermined:
        reach.undetermined = f"more than {MAX_RUNS} TLC runs were needed"
    return reach


def _stopped(run: ToolRun, prefix: str) -> bool:
    """The run ended on our property (a step entered a target, or the survey's cap), not on
    anything else."""
    stopped = run.exit_code == EC.ExitStatus.VIOLATION_LIVENESS
    return stopped and f"{prefix}RStep is violated" in run.output


def _hits(output: str, nonce: str, count: int) -> set[int]:
    found: set[int] = set()
    for group in re.findall(rf'<<\s*"{nonce}h",\s*\{{([^}}]*)\}}\s*>>', output):
        found.update(int(k) - 1 for k in re.findall(r"\d+", group) if 0 < int(k) <= count)
    return found


def _run(
    check: CheckModules,
    contract: Contract,
    adapter: Adapter,
    targets: list[Target],
    nonce: str,
    wall: float,
    survey: bool,
) -> ToolRun:
    """One TLC run over P2's bounded region: Init prints the targets each initial state
    reaches; a step that enters a target its predecessor did not reach (or changes a variable
    whose change is a target) prints them and, unless `survey`, stops the run (a survey stops
    only past SURVEY_STATES distinct states). Every target reached in the region is reached in
    an initial state or entered by some explored step, so a run that explores the region to
    the end shows the targets it did not print are not reached."""
    p = check.prefix
    module_name, root = f"{p}Reach", f"{p}ReachCheck"
    states = [i for i, t in enumerate(targets, 1) if not t.moves]
    steps = [i for i, t in enumerate(targets, 1) if t.moves]
    reach_module = "\n".join(
        [
            f"---- MODULE {module_name} ----",
            f"EXTENDS {', '.join(CONTRACT_EXTENDS)}",
            *([f"CONSTANTS {', '.join(contract.constants)}"] if contract.constants else []),
            f"VARIABLES {', '.join(contract.schema)}",
            *(f"{p}T{i} == {predicate(t)}" for i, t in enumerate(targets, 1)),
            f"{p}H == {_indexes(p, states)}",
            f"{p}New == ({p}H' \\ {p}H) \\cup {_indexes(p, steps)}",
            "====",
        ]
    )
    substitutions = [
        f"{v} <- ({adapter_text.rewrite(adapter.variables.get(v, v), p)})" for v in contract.schema
    ]
    substitutions += [f"{c} <- {p}K_{c}" for c in contract.constants]
    tag, new = f'"{nonce}h"', f"{p}R!{p}New"
    go_on = f'TLCGet("distinct") < {SURVEY_STATES}' if survey else "FALSE"
    lines = [
        f"---- MODULE {root} ----",
        f"EXTENDS {check.root}, TLC",
        f"{p}R == INSTANCE {module_name} WITH\n    " + ",\n    ".join(substitutions),
        f"{p}RInit == {check.init} /\\ PrintT(<<{tag}, {p}R!{p}H>>)",
        f"{p}RStep == [][{new} = {{}} \\/ (PrintT(<<{tag}, {new}>>) /\\ {go_on})]_{p}Vars",
        "====",
    ]
    cfg = [
        check.constants_cfg,
        f"INIT {p}RInit",
        f"NEXT {check.next}",
        f"CONSTRAINT {p}Bound",
        f"PROPERTY {p}RStep",
    ]
    modules = {
        **check.modules,
        module_name: reach_module + "\n",
        **spec_first(root, check.spec_module, "\n".join(lines) + "\n"),
    }
    limits = Limits(
        wall_seconds=wall,
        cpu_seconds=int(wall * 2) + 5,
        heap_mb=int(contract.budget("invariant", "heap_mb")),
        scratch_mb=int(contract.budget("invariant", "scratch_mb")),
        long_run=True,
    )
    flags = check.flags if "-deadlock" in check.flags else ["-deadlock", *check.flags]
    # -difftrace: the trace TLC prints when we stop it must not push our print (just before
    # it) out of the output TLC's reader keeps.
    flags = [*flags, "-difftrace"]
    cfg_text = "\n".join(c for c in cfg if c) + "\n"
    return run_tlc(modules, root, cfg_text, flags, limits, spec=check.spec)


def _indexes(prefix: str, indexes: list[int]) -> str:
    """The set of the targets among `indexes` that hold (in the state, or of the step)."""
    if not indexes:
        return "{}"
    k = f"{prefix}k"
    arms = " [] ".join(f"{k} = {i} -> {prefix}T{i}" for i in indexes)
    return f"{{{k} \\in {{{', '.join(map(str, indexes))}}} : CASE {arms}}}"
