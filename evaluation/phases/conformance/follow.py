"""Follow every trace from the spec's Init and decide each of its events (followmodule.py builds
the module; docs/decisions/0006-p3-follows-traces.md gives the semantics).

Verdicts of one event (a window), from the nonce-tagged lines of runs that ended normally:
- pass: some state the spec reaches by explaining the trace up to the event takes it (`v`);
- fail: some state consistent with the trace's history reached the event's position, and none
  took it;
- undecided: the position was never reached (the spec left the trace earlier and could not be
  resynchronised, or a bound of the run stopped it), with the reason;
- error: TLC could not evaluate the spec or the adapter there.
After a failed (or errored) event the next run of that trace replaces the event by a
resynchronisation: the spec's own steps from the states at its position to a state showing the
event's post-state. When the run finds no such state (none exists, or its bound stopped it
first), the run after that lets the spec pick the trace up at a later event whose pre-state the
same steps reach (the events between stay undecided; the later event must still be taken by its
own action). When a run's state bound cuts the trace short past such a crossing, the next run
searches the crossing only as many steps as the first state across it took (`_narrow`). Runs
repeat until no trace has a new failure, at most runner.MAX_RUNS in all. A negative is accepted
iff some state at the position of an event it is attached to takes it (`n`).

Output cut short by the sandbox proves nothing: the traces of such a run are run again in
halves (down to one trace), and a trace whose own run is cut gets an error on every event
(never a pass), and its negatives count as not evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance import runner
from evaluation.phases.conformance.cases import Case
from evaluation.phases.conformance.diagnose import read_tagged
from evaluation.phases.conformance.followmodule import JUMP_AHEAD, Bounds, FollowRun, build
from evaluation.phases.conformance.runner import (
    Budget,
    Checker,
    SetupError,
    distinct_found,
    error_text,
    tagged_least,
    tagged_numbers,
)
from evaluation.phases.conformance.tlatext import tla_text
from evaluation.phases.conformance.traces import Trace
from evaluation.results import WindowVerdict
from evaluation.tla.codes import EC
from evaluation.tla.sandbox.limits import ToolRun
from evaluation.tla.sandbox.precheck import uses_tlcset
from evaluation.windows.window import Window

SHOWN_STATES = 50  # frontier states kept per failing event, for the diagnosis
# Runs cut short by the state bound that a check may follow on from (a pick-up after a capped
# resynchronisation, a narrowed crossing), and only runs of one trace: every further run follows
# each of its traces again from Init: on mutex (bug), whose 40 traces share each run, following
# on spent P3's whole work bound of 300 CPU seconds (68 s before), and each run of rwmutex (bug)'s
# 80 took 40 to 67. Redisraft's one trace uses three.
EXTENDED_RUNS = 4
CUT = "TLC's output was too large to read (a cut output decides nothing for the spec)"


@dataclass
class EventResult:
    verdict: WindowVerdict
    reason: str = ""
    states: int = 0  # frontier states printed at the event's position (fail only)
    hint: str = ""  # undecided: how a submitter resolves it (one text per kind, for grouping)
    # fail: no state of the spec's whole behaviour (this many distinct states) shows the
    # event's pre-state or post-state (whole_behaviour.py); 0 for any other fail
    unreachable_in: int = 0


# How to resolve an undecided event, one text per cause (the run page groups by it).
HINT_UNBRIDGED = (
    "Let the spec reach this event's pre-state: between two logged events it may take only a "
    "bounded number of steps the trace does not log. Check its Init and the actions that "
    "model the system's unlogged steps."
)
HINT_LEFT = (
    "Fix the first event of this trace that the spec could not take (the trace's timeline on "
    "the run page names it and the guard that was false). The events after it are decided once "
    "the spec follows the trace past it."
)
HINT_CAPPED = (
    "Narrow the spec's free choices: following this trace reached the bound on distinct states "
    "of one run before this event."
)
HINT_WORK = "Make the spec cheaper to evaluate: P3 reached its CPU work bound before this event."


@dataclass
class Followed:
    """Per event (global number, 1-based) its result; per trace what the runs saw."""

    events: dict[int, EventResult] = field(default_factory=dict)
    frontier: dict[int, list[str]] = field(default_factory=dict)  # failing event -> states
    accepted: set[int] = field(default_factory=set)  # negative numbers (1-based) accepted
    reached_negatives: set[int] = field(default_factory=set)  # their events were reached
    cut_negatives: set[int] = field(default_factory=set)  # in a run read only in part
    left: dict[int, tuple[int, str]] = field(default_factory=dict)  # trace -> (event, why)
    resynced: dict[int, list[int]] = field(default_factory=dict)  # trace -> events resynced
    picked_up: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # trace -> (e, f)
    narrowed: dict[int, dict[int, int]] = field(default_factory=dict)  # trace -> event -> steps
    distinct: int = 0  # the largest number of distinct states one run found
    work_bound_reached: bool = False  # the check's CPU work bound stopped a run


@dataclass
class _Trace:
    events: list[int]  # global numbers
    skip: set[int] = field(default_factory=set)
    fresh: set[int] = field(default_factory=set)
    far: set[int] = field(default_factory=set)  # skipped, and no resynchronisation there
    # skipped event -> the steps its gap is narrowed to: after how many a run that its bound
    # cut short crossed it (resynchronised or picked up; later runs search no deeper)
    narrowed: dict[int, int] = field(default_factory=dict)
    done: bool = False


def follow(
    checker: Checker,
    traces: list[Trace],
    windows: list[Window],
    negatives: list[tuple[int, Case]],
    bounds: Bounds,
    folded: Collection[str] = (),
) -> tuple[list[int], Followed]:
    """`negatives`: (window index, negative case). Returns the window index of each global
    event number (1-based, index + 1 into the list) and what the runs decided."""
    following = _Following(checker, bounds, traces, windows, negatives, folded)
    budget = checker.budget
    queue = [list(range(len(following.state)))]
    while queue:
        chosen = [k for k in queue.pop(0) if not following.state[k].done]
        if not chosen:
            continue
        if budget.runs >= runner.MAX_RUNS:
            why = f"not evaluated: more than {runner.MAX_RUNS} TLC runs"
            following.give_up(chosen, why)
            continue
        if budget.work_left() <= 0:
            following.give_up(chosen, work_bound_reason(budget), HINT_WORK)
            continue
        queue.extend(following.one_run(chosen))
    out = following.out
    out.narrowed = {k: tr.narrowed for k, tr in enumerate(following.state) if tr.narrowed}
    # Every path above decides each event of a finished trace; an event left without a verdict
    # is a scorer fault, and fails closed (an error never passes).
    for e in range(1, len(following.order) + 1):
        out.events.setdefault(e, EventResult("error", LOST))
    return following.order, out


def work_bound_reason(budget: Budget) -> str:
    return (
        f"not decided: the spec's evaluation reached P3's work bound of "
        f"{budget.work_cpu_seconds:g} CPU seconds (TLC's own, not the machine's load) first"
    )


LOST = "not evaluated: the scorer left this event without a verdict (a scorer fault)"


class _Following:
    """One P3 check's following of its traces: the events in global numbers (1-based, across
    the traces), each trace's state between runs, and what the runs decided so far."""

    def __init__(
        self,
        checker: Checker,
        bounds: Bounds,
        traces: list[Trace],
        windows: list[Window],
        negatives: list[tuple[int, Case]],
        folded: Collection[str],
    ) -> None:
        self.checker, self.bounds, self.windows = checker, bounds, windows
        self.order = [ev.window for tr in traces for ev in tr.events]
        number = {w: e for e, w in enumerate(self.order, 1)}
        self.quiet = [ev.quiet for tr in traces for ev in tr.events]
        self.logged = [ev.logged for tr in traces for ev in tr.events]
        self.lax = [
            not q and windows[w]["action"] in folded
            for w, q in zip(self.order, self.quiet, strict=True)
        ]
        self.state: list[_Trace] = []
        start = 1
        for tr in traces:
            self.state.append(_Trace(list(range(start, start + len(tr.events)))))
            start += len(tr.events)
        self.negs = [(number[w], c) for w, c in negatives if w in number]
        self.out = Followed()
        self.extended = 0  # capped runs followed on from so far (at most EXTENDED_RUNS)

    def give_up(self, chosen: list[int], why: str, hint: str = "") -> None:
        for k in chosen:
            _give_up(self.out, self.state[k], why, hint=hint)

    def _run_of(
        self, chosen: list[int], local: list[int], renumber: dict[int, int], negatives: list[int]
    ) -> FollowRun:
        state = self.state

        def anywhere(marked: Callable[[_Trace], Collection[int]]) -> list[bool]:
            return [any(e in marked(state[k]) for k in chosen) for e in local]

        narrowed = {e: d for k in chosen for e, d in state[k].narrowed.items()}

        return FollowRun(
            traces=[[renumber[e] for e in state[k].events] for k in chosen],
            windows=[self.windows[self.order[e - 1]] for e in local],
            quiet=[self.quiet[e - 1] for e in local],
            skip=anywhere(lambda tr: tr.skip),
            fresh=anywhere(lambda tr: tr.fresh),
            negatives=[(renumber[self.negs[n - 1][0]], self.negs[n - 1][1]) for n in negatives],
            lax=[self.lax[e - 1] for e in local],
            logged=[self.logged[e - 1] for e in local],
            far=anywhere(lambda tr: tr.far),
            narrowed=[narrowed.get(e) for e in local],
        )

    def one_run(self, chosen: list[int]) -> list[list[int]]:
        """Run the traces `chosen`; record what it decided; return the groups to run again."""
        checker, state, out, bounds = self.checker, self.state, self.out, self.bounds
        plan, budget = checker.plan, checker.budget
        local = [e for k in chosen for e in state[k].events]
        renumber = {e: j for j, e in enumerate(local, 1)}
        # This run's negatives: (its number in the run, its number in the check).
        mine = [k for k, (e, _) in enumerate(self.negs, 1) if e in renumber]
        follow_run = self._run_of(chosen, local, renumber, mine)
        # The registers only where nothing a submitter wrote (the adapter's expressions, refused
        # already when they name TLCSet) brings TLCSet into the module.
        actions = checker.actions
        trusted = not uses_tlcset(build(plan, follow_run, actions, bounds, registers=False))
        run = checker.run(build(plan, follow_run, actions, bounds, registers=trusted), trusted)
        accepted = tagged_numbers(run.output, plan.nonce, "n")
        if run.work_exceeded:
            # The spec's own cost: what the run printed before it was stopped still decides (a
            # printed step was taken), the rest is undecided, and nothing runs again.
            _passes_before_the_error(run, plan.nonce, state, chosen, renumber, out)
            out.accepted |= {k for j, k in enumerate(mine, 1) if j in accepted}
            self.give_up(chosen, work_bound_reason(budget), HINT_WORK)
            out.work_bound_reached = True
            return []
        if run.status != "ok":
            return _failed_run(plan, run, state, chosen, renumber, out)
        if run.truncated:
            if len(chosen) > 1:
                return _halves(chosen)
            _give_up(out, state[chosen[0]], CUT, verdict="error")
            out.cut_negatives |= set(mine)
            return []
        out.accepted |= {k for j, k in enumerate(mine, 1) if j in accepted}
        seen = self._seen(run.output, local)
        self._read(chosen, renumber, seen)
        out.reached_negatives |= {
            k
            for k in mine
            if _reached(renumber[self.negs[k - 1][0]], renumber, state, chosen, seen)
        }
        again = [k for k in chosen if not state[k].done]
        return [again] if again else []

    def _read(self, chosen: list[int], renumber: dict[int, int], seen: _Seen) -> None:
        extend = len(chosen) == 1 and self.extended < EXTENDED_RUNS
        for k in chosen:
            tr = self.state[k]
            tr.fresh.clear()
            _read_trace(self.out, tr, k, renumber, seen, self.quiet, self.bounds, extend)
        # Only a capped run its trace goes on from costs a further run; one that ended the
        # trace spends nothing.
        if seen.capped and extend and not self.state[chosen[0]].done:
            self.extended += 1

    def _seen(self, output: str, local: list[int]) -> _Seen:
        """What a run that ended normally printed, by its own event numbers; the frontier
        states of its failing events are kept for the diagnosis."""
        nonce, out = self.checker.plan.nonce, self.out
        distinct = distinct_found(output) or 0
        out.distinct = max(out.distinct, distinct)
        for item in read_tagged(output, nonce, "f"):
            states = out.frontier.setdefault(local[item[1] - 1], [])
            if len(states) < SHOWN_STATES:
                states.append(_tuple_text(item[2]))
        return _Seen(
            taken=tagged_numbers(output, nonce, "v"),
            resynced=tagged_least(output, nonce, "y"),
            shown=tagged_numbers(output, nonce, "p"),
            capped=distinct >= self.bounds.states,
            picked=tagged_least(output, nonce, "j"),
        )


def _reached(
    e: int, renumber: dict[int, int], state: list[_Trace], chosen: list[int], seen: _Seen
) -> bool:
    for k in chosen:
        events = [renumber[x] for x in state[k].events]
        if e in events:
            p = events.index(e)
            return p == 0 or events[p - 1] in seen.taken | seen.resynced.keys() or e in seen.picked
    return False


@dataclass(frozen=True)
class _Seen:
    """What one run printed, by the run's own event numbers."""

    taken: set[int]  # `v`: some state took the event
    # `y`: some state showed the skipped event's post-state, after the least number of gap
    # steps printed
    resynced: dict[int, int]
    shown: set[int]  # `p`: some state at the event's position showed its pre-state
    capped: bool  # the run stopped at its state bound
    # `j`: the trace was picked up at the event, after the least number of gap steps printed
    picked: dict[int, int] = field(default_factory=dict)


def _read_trace(
    out: Followed,
    tr: _Trace,
    k: int,
    renumber: dict[int, int],
    seen: _Seen,
    quiet: list[bool],
    bounds: Bounds,
    extend: bool = True,
) -> None:
    """`extend`: a run its state bound cut short may still be followed on from (a pick-up, a
    narrowed crossing); otherwise what it did not decide is undecided."""
    taken, capped = seen.taken, seen.capped
    events = tr.events
    p = 0
    while p < len(events):
        e = events[p]
        j = renumber[e]
        reached = (
            p == 0 or renumber[events[p - 1]] in taken | seen.resynced.keys() or j in seen.picked
        )
        if not reached:
            before = events[p - 1]
            # Capped while looking past an event the spec could not take: that event is where
            # the spec left the trace, and fixing it is what decides the rest.
            after_failure = before in tr.skip
            if capped and not after_failure:
                why = f"the run reached its bound of {bounds.states} distinct states first"
            elif capped:
                why = (
                    f"the spec left the trace: event {before} "
                    f"{_what_happened(out, before)}, and the search for a state past it reached "
                    f"the bound of {bounds.states} distinct states first"
                )
            else:
                why = _left_reason(out, before, bounds)
            if not capped and before in tr.far:
                why += f", nor the pre-state of any of the next {JUMP_AHEAD} events"
            out.left[k] = (before, why)
            _undecided(
                out, events[p:], why, HINT_CAPPED if capped and not after_failure else HINT_LEFT
            )
            tr.done = True
            return
        if e in tr.skip:
            after = _past_skipped(out, tr, k, p, renumber, seen, extend)
            if after is None:
                return
            p = after
            continue
        if j in taken:
            out.events[e] = EventResult("pass")
            p += 1
            continue
        if capped:
            why = f"the run reached its bound of {bounds.states} distinct states first"
            out.left[k] = (e, why)
            _undecided(out, events[p:], why, HINT_CAPPED)
            tr.done = True
            return
        if j in seen.shown or quiet[e - 1]:
            out.events[e] = EventResult("fail")
        else:
            # The trace does not say what happened since its previous event: a pre-state the
            # spec does not reach within the gap's bound decides nothing about the action.
            out.events[e] = EventResult("undecided", _unbridged(p, bounds), hint=HINT_UNBRIDGED)
        tr.skip.add(e)
        tr.fresh.add(e)
        return
    tr.done = True


def _past_skipped(
    out: Followed,
    tr: _Trace,
    k: int,
    p: int,
    renumber: dict[int, int],
    seen: _Seen,
    extend: bool,
) -> int | None:
    """Where the trace goes on after the skipped event at `p` (None: the next run decides)."""
    e = tr.events[p]
    j = renumber[e]
    if j not in seen.resynced and e not in tr.far:
        if seen.capped and not extend:
            return p + 1  # the next event is not reached: the spec left the trace here
        # No state the run reached shows its post-state (none exists, or the bound stopped the
        # search first): the next run may pick the trace up later. A pick-up is a state the
        # spec's own steps reach, so a capped search credits nothing it did not find; what it
        # did not find stays undecided.
        tr.far.add(e)
        return None
    if seen.capped and extend and e not in tr.narrowed and _narrow(tr, p, renumber, seen):
        # The bound cut the run short past the spec's own steps across this failure: the next
        # run searches them (and those across the trace's later failures) only as deep as the
        # first state found across each. That is a subset of the same states, so the run
        # credits nothing this one did not reach, and the trace goes on from there instead of
        # stopping.
        return None
    if j in seen.resynced:
        out.resynced.setdefault(k, []).append(e)
        return p + 1
    return _picked_up_after(out, tr, k, p, renumber, seen)


def _narrow(tr: _Trace, p: int, renumber: dict[int, int], seen: _Seen) -> bool:
    """Narrow the gap of each failure from position `p` on that the run bridged and that is
    not narrowed yet to the steps it was bridged after; whether the first one was."""
    for q in range(p, len(tr.events)):
        e = tr.events[q]
        if e in tr.skip and e not in tr.narrowed:
            # A pick-up is only searched after a far event (and a later event picked up may
            # belong to an earlier one's).
            picked = _pick_up_depth(tr, q, renumber, seen) if e in tr.far else None
            depth = seen.resynced.get(renumber[e], picked)
            if depth is not None:
                tr.narrowed[e] = depth
    return tr.events[p] in tr.narrowed


def _pick_up_depth(tr: _Trace, p: int, renumber: dict[int, int], seen: _Seen) -> int | None:
    """The gap steps after which the run picked the trace up after the skipped event at `p`,
    at the first later event it was picked up at (None: nowhere)."""
    for e in tr.events[p + 1 : p + 1 + JUMP_AHEAD]:
        if renumber[e] in seen.picked:
            return seen.picked[renumber[e]]
    return None


def _picked_up_after(
    out: Followed, tr: _Trace, k: int, p: int, renumber: dict[int, int], seen: _Seen
) -> int:
    """The position the trace goes on from after the skipped event at `p`: the first later
    event some state was picked up at (the events between are undecided), or the next one
    (which the caller then finds not reached)."""
    events = tr.events
    later = [q for q in range(p + 1, len(events)) if renumber[events[q]] in seen.picked]
    if not later:
        return p + 1
    at = later[0]
    e, f = events[p], events[at]
    why = (
        f"not decided: the spec could not take event {e} nor reach its post-state, and picked "
        f"the trace up again at event {f}"
    )
    _undecided(out, events[p + 1 : at], why, HINT_LEFT)
    if (e, f) not in out.picked_up.setdefault(k, []):
        out.picked_up[k].append((e, f))
    return at


def _unbridged(position: int, bounds: Bounds) -> str:
    since = "Init" if position == 0 else "the states where it took the previous event"
    return (
        f"no state the spec reaches from {since} within {bounds.free} steps shows this "
        "event's pre-state, and the trace does not say what happened in between"
    )


def _what_happened(out: Followed, event: int) -> str:
    result = out.events.get(event)
    return {"error": "could not be evaluated", "undecided": "was not reached"}.get(
        result.verdict if result else "", "failed"
    )


def _left_reason(out: Followed, before: int, bounds: Bounds) -> str:
    return (
        f"the spec left the trace: event {before} {_what_happened(out, before)} and no state the "
        f"spec reaches from the states at its position within {bounds.free + bounds.resync} "
        "steps shows its post-state"
    )


def _undecided(out: Followed, events: list[int], why: str, hint: str = "") -> None:
    for e in events:
        if e not in out.events:
            out.events[e] = EventResult("undecided", why, hint=hint or why)


def _give_up(
    out: Followed, tr: _Trace, why: str, verdict: WindowVerdict = "undecided", hint: str = ""
) -> None:
    for e in tr.events:
        if verdict == "error" or e not in out.events:
            out.events[e] = EventResult(verdict, why, hint=hint or why)
    tr.done = True


def _halves(chosen: list[int]) -> list[list[int]]:
    """A run of several traces that decided nothing is run again in two halves, each split
    again if it fails the same way, down to single traces: the runs grow with the log of the
    traces, not their number (one run per trace exhausted runner.MAX_RUNS on rwmutex's 40)."""
    half = len(chosen) // 2
    return [chosen[:half], chosen[half:]]


def _failed_run(
    plan: gen.Plan,
    run: ToolRun,
    state: list[_Trace],
    chosen: list[int],
    renumber: dict[int, int],
    out: Followed,
) -> list[list[int]]:
    """A run that stopped with an error: the event it was evaluating gets the error and is
    skipped from then on; an error no event can be blamed for splits the traces."""
    problem = runner._setup_problem(run)
    if problem:
        raise SetupError(problem.replace(plan.nonce, ""), run.messages)
    _passes_before_the_error(run, plan.nonce, state, chosen, renumber, out)
    blamed = _blamed(run, plan.nonce)
    reason = error_text(run, plan.nonce)
    if blamed is not None:
        t, i = blamed
        if 1 <= t <= len(chosen) and 1 <= i <= len(state[chosen[t - 1]].events):
            tr = state[chosen[t - 1]]
            e = tr.events[i - 1]
            if e in tr.skip:
                # The error is on the way past an event already skipped: the trace ends here.
                out.left[chosen[t - 1]] = (e, f"TLC could not evaluate the spec there: {reason}")
                _undecided(out, tr.events[i:], f"the spec left the trace: {reason}", HINT_LEFT)
                # Events before it that the aborted run did not print: nothing decided them.
                _undecided(out, tr.events[:i], f"not decided: TLC stopped at event {e} first")
                tr.done = True
                return [chosen]
            out.events[e] = EventResult("error", reason)
            tr.skip.add(e)
            return [chosen]
    if len(chosen) > 1:
        return _halves(chosen)
    tr = state[chosen[0]]
    # Before the first event (or in Init): nothing of this trace can be evaluated.
    pending = [e for e in tr.events if e not in out.events or e in tr.skip]
    if pending and tr.skip:
        _give_up(out, tr, reason)
    else:
        _give_up(out, tr, reason, verdict="error")
    return []


def _passes_before_the_error(
    run: ToolRun,
    nonce: str,
    state: list[_Trace],
    chosen: list[int],
    renumber: dict[int, int],
    out: Followed,
) -> None:
    """A run that stopped with an error still printed, before it, the events some state took:
    each such line is a step the spec took from a state consistent with the trace, so a pass
    (an errored run read no further proves nothing else)."""
    taken = tagged_numbers(run.output, nonce, "v")
    for k in chosen:
        for e in state[k].events:
            if renumber[e] in taken and e not in out.events:
                out.events[e] = EventResult("pass")


def _blamed(run: ToolRun, nonce: str) -> tuple[int, int] | None:
    """(trace number in the run, position) of the state TLC's error trace ends in, when a trace
    was chosen there."""
    t_pat = re.compile(rf"_tr_{nonce} = (\d+)")
    i_pat = re.compile(rf"_pos_{nonce} = (\d+)")
    last: tuple[int, int] | None = None
    for m in run.messages:
        if m.code == EC.TLC_STATE_PRINT2:
            t, i = t_pat.search(m.text), i_pat.search(m.text)
            if t and i and int(t.group(1)) > 0:
                last = (int(t.group(1)), int(i.group(1)))
    return last


def _tuple_text(values: tuple[Any, ...]) -> str:
    return "<<" + ", ".join(tla_text(v) for v in values) + ">>"
