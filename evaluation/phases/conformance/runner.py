"""The TLC runs of P3 and what they share: the budget, the run itself, setup problems, errors.

A run is one TLC call on a generated module beside the spec (follow.py, diagnose.py,
blocking.py). A parse error of the generated module (unknown operator, wrong arity in an adapter
action) is not a window verdict: it raises SetupError with SANY's message. `CaseResult` is a
negative window's verdict (specificity.py).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from evaluation.inputs.budgets import ConformanceBudget
from evaluation.phases._common import raise_if_timed_out, safety_net_reached
from evaluation.phases.conformance import generator as gen
from evaluation.results import WindowVerdict
from evaluation.tla import messages as tlcmsg
from evaluation.tla.codes import EC, MP, SETUP_EXITS, TLC_2200S
from evaluation.tla.layout import spec_first
from evaluation.tla.parsed import ParsedSpec
from evaluation.tla.sandbox.calls import run_tlc
from evaluation.tla.sandbox.limits import Limits, ToolRun

MAX_RUNS = 40
# The output a P3 run may print and still be read whole. The exploration prints a line per state
# that shows a window; at the sandbox's default 100 kB the rwmutex reproduction's first run was
# cut, and reading it by halves took 9 runs of the same state space (47 s) instead of one. A spec
# that floods past this is still cut and read by halves, then undecided: never a pass.
READ_OUTPUT_BYTES = 8_000_000
TLC_ARGS = ["-deadlock", "-nowarning"]
# A false ASSUME, or a cfg the wrapper module does not fit: nothing in it can be checked.
SETUP_CODES = (
    EC.TLC_ASSUMPTION_FALSE,
    EC.TLC_CONFIG_VALUE_NOT_ASSIGNED_TO_CONSTANT_PARAM,
    EC.TLC_CONFIG_SPECIFIED_NOT_DEFINED,
    EC.TLC_CONFIG_ID_MUST_NOT_BE_CONSTANT,
    EC.TLC_CONFIG_OP_NO_ARGS,
)


class SetupError(Exception):
    """The wrapper module cannot be checked at all (parse/semantic/config error, a false
    ASSUME); `messages` are TLC's, for the caller to explain."""

    def __init__(self, problem: str, messages: Iterable[tlcmsg.Message] = ()) -> None:
        super().__init__(problem)
        self.messages = list(messages)


@dataclass
class CaseResult:
    verdict: WindowVerdict
    reason: str = ""
    freedom: int | None = None  # how many pre-states the case was checked from
    failing: set[int] = field(default_factory=set)  # candidate numbers the action failed from
    failed_from: int | None = None  # how many pre-states it failed from (None: len(failing))


@dataclass
class Budget:
    """What P3's TLC runs may use. Which runs are made depends on work alone (MAX_RUNS, the
    contract's depth and state bounds), never on the clock: the deadline (`wall_seconds` after
    the phase began) is a safety net, and reaching it stops the scoring (`run_module`)."""

    deadline: float
    wall_seconds: float = 0.0
    heap_mb: int = 512
    scratch_mb: int = 256
    seed: int | None = None
    runs: int = 0
    # The work bound on what TLC cannot count (budgets.ConformanceBudget.work_cpu_seconds):
    # the CPU seconds all of the check's runs may spend, and what they have spent.
    work_cpu_seconds: float = ConformanceBudget.work_cpu_seconds
    cpu_spent: float = 0.0

    def work_left(self) -> float:
        return self.work_cpu_seconds - self.cpu_spent

    def remaining(self) -> float:
        return self.deadline - time.monotonic()


@dataclass(frozen=True)
class Checker:
    """What every TLC run of one P3 check shares: the generated modules' plan, the spec, the
    target actions that have windows (in the generated tables' order), and the check's budget
    (its runs and work so far, which every run adds to)."""

    plan: gen.Plan
    spec: ParsedSpec
    actions: list[str]
    budget: Budget

    def run(self, module: str, trusted: bool = False) -> ToolRun:
        return run_module(self.plan, self.spec, module, self.budget, trusted=trusted)


def run_module(
    plan: gen.Plan,
    spec: ParsedSpec,
    module: str,
    budget: Budget,
    trusted: bool = False,
    cfg: str | None = None,
) -> ToolRun:
    """`module` beside the spec, in one TLC run (`spec` spares the sandbox a parse of its text).
    `trusted`: the generated module may use TLC's registers (`TLCSet`): the caller checked that
    nothing a submitter wrote in it does (follow.py). `cfg`: in place of the plan's own."""
    budget.runs += 1
    if budget.remaining() <= 1:
        safety_net_reached("conformance", budget.wall_seconds, "no time left for its next TLC run")
    wall = budget.remaining()
    limits = Limits(
        wall_seconds=wall,
        cpu_seconds=int(wall * 2) + 5,
        heap_mb=budget.heap_mb,
        scratch_mb=budget.scratch_mb,
        output_head_bytes=READ_OUTPUT_BYTES,
        work_cpu_seconds=max(1.0, budget.work_left()),
    )
    generated = spec_first(gen.module_name(plan), plan.spec_module, module)
    modules = {plan.spec_module: spec.text, **generated}
    run = run_tlc(
        modules,
        gen.module_name(plan),
        cfg or gen.build_cfg(plan),
        TLC_ARGS,
        limits,
        seed=budget.seed,
        spec=spec,
        trusted=tuple(generated) if trusted else (),
    )
    budget.cpu_spent += run.cpu_seconds or 0.0
    if run.work_exceeded:
        budget.cpu_spent = max(budget.cpu_spent, budget.work_cpu_seconds)
    raise_if_timed_out("conformance", run, budget.wall_seconds)
    return run


def _setup_problem(run: ToolRun) -> str:
    codes = {m.code for m in run.messages}
    if EC.TLC_PARSING_FAILED in codes or run.exit_code in SETUP_EXITS:
        return _sany_text(run.output) or "the generated module does not parse"
    for m in run.messages:
        if m.code in SETUP_CODES or (
            m.severity == MP.ERROR and m.code in TLC_2200S and "constant" in m.text.lower()
        ):
            return m.text
    return ""


def _sany_text(output: str) -> str:
    """SANY's own error lines (between its start and end messages; no timestamps)."""
    start = output.find("Starting SANY")
    end = output.find("SANY finished", max(start, 0))
    body = output[start if start >= 0 else 0 : end if end >= 0 else len(output)]
    lines = [
        line
        for line in body.splitlines()
        if line.strip()
        and "@!@!@" not in line
        and not line.startswith(("Parsing file", "Semantic processing", "Starting SANY"))
    ]
    return "\n".join(lines[:12])


def error_text(run: ToolRun, nonce: str) -> str:
    """TLC's error messages without boilerplate, with the per-run nonce masked so the same
    spec and windows always give the same reason."""
    errors = [
        m.text
        for m in run.messages
        if m.severity == MP.ERROR and m.code != EC.TLC_BEHAVIOR_UP_TO_THIS_POINT
    ]
    lines = [
        line.lstrip(": ")
        for line in "\n".join(errors).splitlines()
        if line.strip() and not tlcmsg.is_preamble(line)
    ]
    text = "\n".join(lines) or run.note or f"TLC exited with {run.exit_code}"
    return text.replace(nonce, "")[:1500]


_DISTINCT = re.compile(r"(\d+) distinct states found")


def distinct_found(output: str) -> int | None:
    """The distinct states TLC last reported (None: it reported none)."""
    found = _DISTINCT.findall(output)
    return int(found[-1]) if found else None


def tagged_numbers(output: str, nonce: str, tag: str) -> set[int]:
    """The numbers a generated module printed as `<<"<nonce><tag>", n>>`."""
    return {int(k) for k in re.findall(rf'<<\s*"{nonce}{tag}",\s*(\d+)\s*>>', output)}


def tagged_least(output: str, nonce: str, tag: str) -> dict[int, int]:
    """Per number n a generated module printed as `<<"<nonce><tag>", n, m>>`, the least m."""
    least: dict[int, int] = {}
    for k, m in re.findall(rf'<<\s*"{nonce}{tag}",\s*(\d+),\s*(\d+)\s*>>', output):
        least[int(k)] = min(int(m), least.get(int(k), int(m)))
    return least
