"""Run cases through TLC in chunks and turn the output into one verdict per case.

A chunk is one TLC run. Its outcome per case, from the nonce-tagged lines `<<"<nonce>c", k, j>>`
(pre-state j of case k was checked) and `<<"<nonce>v", k, j>>` (a successor of it satisfied the
post constraints), in a run that ended normally with nothing left on the queue:
- pass: at least one pre-state, and a pass line for every one of them (no convenient choice:
  where several credited spec states show the window's pre-state, the action must take each of
  them to the post-state);
- fail: otherwise (`freedom` says how many pre-states there were, `failing` which ones failed);
  cases already decided by the exploration (explore.py) are not run again;
- error: TLC could not evaluate case k. An evaluation error aborts the whole run; the trace TLC
  prints shows `_w_<nonce> = k`, so case k gets the error and the rest run again. When the trace
  does not name a case (an error while computing initial states), the chunk is split in halves
  until it does. Reruns are bounded; what the bound leaves unevaluated is an error, never a pass.
Output cut short by the sandbox's limit proves nothing (a missing line may be a failure): the
chunk runs again in halves, and a single case that cannot be read is an error.
A parse error of the generated module (unknown operator, wrong arity in an adapter action) is
not a window verdict: it raises SetupError with SANY's message.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from evaluation.phases._common import raise_if_timed_out, safety_net_reached
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import Case
from evaluation.results import WindowVerdict
from evaluation.tla import messages as tlcmsg
from evaluation.tla.codes import EC, MP, SETUP_EXITS, TLC_2200S
from evaluation.tla.layout import spec_first
from evaluation.tla.parsed import ParsedSpec
from evaluation.tla.sandbox.calls import run_tlc
from evaluation.tla.sandbox.limits import Limits, ToolRun

CHUNK = 1000
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

    def remaining(self) -> float:
        return self.deadline - time.monotonic()


def run_module(
    plan: gen.Plan, spec: ParsedSpec, module: str, budget: Budget, trusted: bool = False
) -> ToolRun:
    """`module` beside the spec, in one TLC run (`spec` spares the sandbox a parse of its text).
    `trusted`: the generated module may use TLC's registers (`TLCSet`): the caller checked that
    nothing a submitter wrote in it does (follow.py)."""
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
    )
    generated = spec_first(gen.module_name(plan), plan.spec_module, module)
    modules = {plan.spec_module: spec.text, **generated}
    run = run_tlc(
        modules,
        gen.module_name(plan),
        gen.build_cfg(plan),
        TLC_ARGS,
        limits,
        seed=budget.seed,
        spec=spec,
        trusted=tuple(generated) if trusted else (),
    )
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


def attributed_case(run: ToolRun, nonce: str) -> int | None:
    pattern = re.compile(rf"_w_{nonce} = (\d+)")
    for m in run.messages:
        if m.code == EC.TLC_STATE_PRINT2:
            found = pattern.search(m.text)
            if found:
                return int(found.group(1))
    return None


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


def tagged(output: str, nonce: str, tag: str) -> dict[int, set[int]]:
    """Case number -> the pre-state numbers printed with this tag."""
    found: dict[int, set[int]] = {}
    for k, j in re.findall(rf'<<\s*"{nonce}{tag}",\s*(\d+),\s*(\d+)\s*>>', output):
        found.setdefault(int(k), set()).add(int(j))
    return found


def check_cases(
    plan: gen.Plan,
    spec: ParsedSpec,
    cases: list[Case],
    actions: list[str],
    aux: gen.AuxRule,
    budget: Budget,
    decided: dict[int, CaseResult] | None = None,
) -> list[CaseResult]:
    """One verdict per case; those in `decided` (the explored ones, explore.py) are not run."""
    results: list[CaseResult | None] = [None] * len(cases)
    for i, result in (decided or {}).items():
        results[i] = result
    runnable = [i for i in range(len(cases)) if results[i] is None]
    queue = [runnable[i : i + CHUNK] for i in range(0, len(runnable), CHUNK)]
    while queue:
        chunk = queue.pop(0)
        if budget.runs >= MAX_RUNS:
            reason = f"not evaluated: more than {MAX_RUNS} TLC runs were needed"
            for i in chunk:
                results[i] = CaseResult("error", reason)
            continue
        module = gen.build_module(plan, [cases[i] for i in chunk], actions, aux.subset(chunk))
        run = run_module(plan, spec, module, budget)
        queue[:0] = _absorb(run, plan, cases, chunk, results, budget)
    return [r or CaseResult("error", "not evaluated") for r in results]


def _halves(chunk: list[int]) -> list[list[int]]:
    mid = len(chunk) // 2
    return [chunk[:mid], chunk[mid:]]


def _absorb(
    run: ToolRun,
    plan: gen.Plan,
    cases: list[Case],
    chunk: list[int],
    results: list[CaseResult | None],
    budget: Budget,
) -> list[list[int]]:
    """Record what this run decided; return the sub-chunks that must run again."""
    if run.status == "ok":
        if run.truncated:
            if len(chunk) > 1:
                return _halves(chunk)
            results[chunk[0]] = CaseResult("error", "TLC output too large to read the verdict")
            return []
        checked = tagged(run.output, plan.nonce, "c")
        passed = tagged(run.output, plan.nonce, "v")
        for k, i in enumerate(chunk, start=1):
            judge = negative_verdict if is_negative(cases[i]) else verdict
            results[i] = judge(checked.get(k, set()), passed.get(k, set()))
        return []
    problem = _setup_problem(run)
    if problem:
        raise SetupError(problem.replace(plan.nonce, ""), run.messages)
    blamed = attributed_case(run, plan.nonce)
    if blamed is not None and 1 <= blamed <= len(chunk):
        results[chunk[blamed - 1]] = CaseResult("error", error_text(run, plan.nonce))
        rest = chunk[: blamed - 1] + chunk[blamed:]
        return [rest] if rest else []
    if len(chunk) > 1:
        return _halves(chunk)
    results[chunk[0]] = CaseResult("error", error_text(run, plan.nonce))
    return []


def verdict(checked: set[int], passed: set[int]) -> CaseResult:
    """Pass only when the action reached the post-state from every pre-state checked."""
    failing = checked - passed
    ok = bool(checked) and not failing
    return CaseResult("pass" if ok else "fail", "", len(checked), failing)


def is_negative(case: Case) -> bool:
    """A negative window (a transition the system never makes), as opposed to a real one."""
    return case.kind != "real"


def negative_verdict(checked: set[int], passed: set[int]) -> CaseResult:
    """A negative window is accepted ("pass") when the action takes *some* credited pre-state
    to its post-state. The quantifier is the mirror of `verdict`'s on purpose: with "every
    pre-state" a spec could hide an action that allows anything behind a hidden flag both of
    whose values are reachable (the strict value rejects every negative, the lax one accepts
    every real window); with "some", each credited pre-state must both accept the real window
    and reject the negatives."""
    ok = bool(passed & checked)
    return CaseResult("pass" if ok else "fail", "", len(checked), checked - passed)
