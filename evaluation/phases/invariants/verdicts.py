"""What one TLC run says about an invariant: a verdict, never from text the spec could print.

A pass needs TLC's exit status and its final statistics (0 states left on queue), and an
exploration beyond the initial states (`vacuity`); a violation needs TLC's exit status.
"""

from __future__ import annotations

import re

from evaluation.details import InvariantKind
from evaluation.phases.invariants.build import CheckModules
from evaluation.phases.invariants.levels import INVARIANT, PROPERTY
from evaluation.phases.invariants.trace import parse_trace
from evaluation.results import InvariantOutcome
from evaluation.tla import messages as msg
from evaluation.tla.codes import EC
from evaluation.tla.sandbox.limits import ToolRun

TRACE_CODES = (
    EC.TLC_BEHAVIOR_UP_TO_THIS_POINT,
    EC.TLC_STATE_PRINT2,
    EC.TLC_COUNTER_EXAMPLE,
    EC.TLC_BACK_TO_STATE,
    EC.TLC_STATE_PRINT3,
)
_INIT_STATES = re.compile(r"(\d+) distinct states? generated")
_DISTINCT = re.compile(r"(\d+) distinct states found")
_QUEUE_EMPTY = re.compile(r"\b0 states left on queue")


def completed_without_error(run: ToolRun) -> bool:
    """TLC finished the whole state space with no error (exit 0 and 0 states left on queue).

    The last TLC_STATS is printed by TLC after evaluation stopped, so a spec's `Print` cannot
    stand in for it; `TLCSet("exit", TRUE)` stops early and leaves states on the queue.
    """
    final = msg.last(run.messages, EC.TLC_STATS)
    return (
        run.status == "ok"
        and run.exit_code == EC.ExitStatus.SUCCESS
        and final is not None
        and bool(_QUEUE_EMPTY.search(final.text))
    )


def vacuity(run: ToolRun, min_states: int) -> str:
    """Why a completed run is not a pass although nothing was violated ("" when it is one): it
    explored no state beyond the initial ones, or fewer distinct states than the contract asks.
    A spec whose Next never moves would otherwise satisfy every invariant."""
    init = msg.first(run.messages, EC.TLC_INIT_GENERATED1)
    final = msg.last(run.messages, EC.TLC_STATS)
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


def verdict_from_run(
    name: str,
    kind: InvariantKind,
    run: ToolRun,
    mode: str | None = None,
    min_states: int = 2,
) -> InvariantOutcome:
    """One invariant's verdict from a TLC run that checked it alone (as `mode`, by default the
    kind's usual one). Any violation TLC reports is a violation, whatever the mode."""
    mode = mode or (INVARIANT if kind == "safety" else PROPERTY)
    if completed_without_error(run):
        vacuous = vacuity(run, min_states)
        if vacuous:
            # Too little explored to say the invariant constrains anything: not a fault, no credit.
            return InvariantOutcome(name, kind, "error", vacuous, credit="vacuous")
        return InvariantOutcome(name, kind, "holds", credit="credited")
    if run.status == "error" and run.exit_code in (
        EC.ExitStatus.VIOLATION_SAFETY,
        EC.ExitStatus.VIOLATION_LIVENESS,
    ):
        trace = parse_trace(run.messages)
        reason = (
            "TLC reached a state that violates it"
            if run.exit_code == EC.ExitStatus.VIOLATION_SAFETY
            else "TLC found a behaviour of the spec that violates it"
        )
        return InvariantOutcome(name, kind, "violated", reason, trace, credit="failed")
    if run.exit_code == EC.ExitStatus.VIOLATION_DEADLOCK:
        reason = (
            "TLC reached a deadlock before the check completed (the task's deadlock policy is "
            "'error'), so the invariant could not be established"
        )
        return InvariantOutcome(
            name, kind, "error", reason, parse_trace(run.messages), credit="error"
        )
    reason = f"TLC could not check it (exit code {run.exit_code}): "
    return InvariantOutcome(name, kind, "error", reason + error_text(run), credit="error")


def temporal_violation(run: ToolRun) -> bool:
    return run.status == "error" and run.exit_code == EC.ExitStatus.VIOLATION_LIVENESS


def violated_name(check: CheckModules, run: ToolRun, names: list[str]) -> str | None:
    if run.status != "error" or run.exit_code != EC.ExitStatus.VIOLATION_SAFETY:
        return None
    message = msg.last(run.messages, EC.TLC_INVARIANT_VIOLATED_BEHAVIOR)
    match = re.search(
        rf"\b{check.prefix}_([A-Za-z0-9_]+) is violated", message.text if message else ""
    )
    return match.group(1) if match and match.group(1) in names else None


def error_text(run: ToolRun) -> str:
    """What went wrong, for the submitter: SANY's own text on a parse/semantic error (TLC prints
    it untagged between TLC_SANY_START and TLC_SANY_END), otherwise TLC's own error messages."""
    if msg.first(run.messages, EC.TLC_PARSING_FAILED) is not None:
        between = run.output.split(f"@!@!@ENDMSG {EC.TLC_SANY_START} @!@!@", 1)[-1]
        sany = between.split(f"@!@!@STARTMSG {EC.TLC_SANY_END}", 1)[0]
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
