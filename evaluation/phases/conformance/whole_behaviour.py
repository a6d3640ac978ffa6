"""Whether the spec can reach a state that shows a window's pre-state (or post-state) at all.

One TLC run over the spec's own behaviour (the adapter's Init and Next, no trace, no bound on
depth) marks every given window state some reachable state shows. When the run explored the whole
state space (it ended by itself, below the state bound, with its output read whole), a state left
unmarked is shown by no state the spec can ever reach: no history, however long, leads the spec
to the system's state there, so the event is not reproduced. That is a proof, and follow.py's
bounded gaps and resynchronisations are not: they can only leave such an event undecided.
Anything short of a whole exploration proves nothing and changes no verdict; a pass never comes
from here (docs/decisions/0038-what-the-spec-never-reaches-fails.md).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field

from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.follow import EventResult, Followed
from evaluation.phases.conformance.runner import (
    MAX_RUNS,
    Checker,
    distinct_found,
    run_module,
    tagged_numbers,
)
from evaluation.tla.sandbox.precheck import uses_tlcset
from evaluation.tla.values import to_tla
from evaluation.windows.window import State, Window

PRINTED = 1  # TLC register: the window states already shown (and printed)


@dataclass(frozen=True)
class Exploration:
    """What one exploration of the spec's whole behaviour found."""

    exhaustive: bool  # every reachable state was explored (below `cap`, output read whole)
    distinct: int  # distinct states found
    shown: frozenset[int] = field(default_factory=frozenset)  # indices of the states shown


def explore(checker: Checker, states: list[State], carried: list[Window], cap: int) -> Exploration:
    """Explore the spec's behaviour from its Init (at most `cap` distinct states) and mark the
    `states` some reachable state shows. `carried`: the events that carry a message, whose
    mapped actions P3 lets take them without being steps of Next (decision 0037): each may
    step from any state here too, so the exploration holds every state following can reach."""
    plan = checker.plan
    steps = carried_steps(plan, checker.actions, carried)
    plain = build(plan, states, steps, cap, registers=False)
    trusted = not uses_tlcset(plain)
    module = build(plan, states, steps, cap, registers=True) if trusted else plain
    cfg = gen.build_cfg(plan) + f"INVARIANT {gen.n(plan, 'Mark')}\n"
    run = run_module(plan, checker.spec, module, checker.budget, trusted=trusted, cfg=cfg)
    distinct = distinct_found(run.output)
    shown = {k - 1 for k in tagged_numbers(run.output, plan.nonce, "r")}
    exhaustive = (
        run.status == "ok"
        and not run.truncated
        and not run.work_exceeded
        and distinct is not None
        and distinct < cap
    )
    return Exploration(exhaustive, distinct or 0, frozenset(shown))


def carried_steps(plan: gen.Plan, actions: list[str], carried: list[Window]) -> list[str]:
    """Each distinct (action, actor, message) of the events that carry a message, as the
    adapter's expression for the action with the actor and message bound."""
    steps: dict[str, None] = {}
    for w in carried:
        if w["action"] not in actions:
            continue
        actor = gen.adapter_expr(plan, plan.adapter.actor_expr(w["actor"]))
        bound = {"actor": actor, "msg": to_tla(w["input"])}
        expr = gen.adapter_expr(plan, plan.adapter.actions[w["action"]], bound)
        steps.setdefault(f"({expr})", None)
    return list(steps)


def build(plan: gen.Plan, states: list[State], steps: list[str], cap: int, registers: bool) -> str:
    """The module: the spec's Init, its Next or one of `steps`, and the invariant `Mark` that
    prints the number of each of `states` some reachable state shows; `registers` False: every
    time it shows one (for a spec that cannot be trusted with `TLCSet`)."""
    n = gen.n
    x, cs, y, c, w = (n(plan, v) for v in ("x", "cs", "y", "c", "w"))
    items: dict[str, int] = {}
    rows = []
    for state in states:
        numbers = [
            str(items.setdefault(item, len(items) + 1))
            for item in gen.constraint_items(plan, state, set())
        ]
        rows.append("<<" + ", ".join(numbers) + ">>")
    printed = f'PrintT(<<"{plan.nonce}r", {x}>>)'
    # With the register, a state shown once is not compared again (TLC evaluates a disjunction
    # from the left): the cost is the states never shown, which are the ones that decide.
    mark = (
        f"{x} \\in TLCGet({PRINTED}) \\/ ~{n(plan, 'Shows')}({w}, {x}) \\/ "
        f"(TLCSet({PRINTED}, TLCGet({PRINTED}) \\cup {{{x}}}) /\\ {printed})"
        if registers
        else f"{n(plan, 'Shows')}({w}, {x}) => {printed}"
    )
    init = f"{n(plan, 'Init')} == {plan.init}"
    return (
        "\n".join(
            [
                f"---- MODULE {gen.module_name(plan)} ----",
                f"EXTENDS {plan.spec_module}, TLC, Naturals",
                *gen.prelude(plan),
                *gen._projection(plan),
                f"{n(plan, 'CI')} == {gen._tuple(list(items) or ['0'])}",
                f"{n(plan, 'CS')} == {gen._tuple(rows)}",
                f"{n(plan, 'Shows')}({w}, {x}) == LET {cs} == {n(plan, 'CS')}[{x}] IN "
                f"\\A {y} \\in DOMAIN {cs} : LET {c} == {n(plan, 'CI')}[{cs}[{y}]] IN "
                f"{n(plan, 'Sat')}({w}[{c}[1]], {c})",
                # An invariant that always holds: it is evaluated once on every reachable state.
                # The projection is evaluated once per state, not once per constraint.
                f"{n(plan, 'Mark')} == LET {w} == {n(plan, 'WProj')} IN "
                f"\\A {x} \\in 1..{len(states)} : {mark}",
                init + (f" /\\ TLCSet({PRINTED}, {{}})" if registers else ""),
                f'{n(plan, "Next")} == TLCGet("distinct") < {cap} /\\ '
                + "("
                + " \\/ ".join([f"({plan.next})", *steps])
                + ")",
                "====",
            ]
        )
        + "\n"
    )


UNREACHABLE = (
    "not reproduced: no state the spec can reach shows this event's {side} (its whole state "
    "space under P3's constants, {distinct} distinct states, was explored), so no history leads "
    "it to the system's state here"
)
HINT_UNREACHABLE = (
    "Let the spec reach the system's states here: no state of its whole behaviour shows this "
    "event's pre-state or post-state. Compare the trace's states with the spec's Init, its "
    "actions and the adapter's variable mappings (a value the spec writes differently, a "
    "variable it never changes)."
)
# The whole exploration is worth making only for a small behaviour: a large one reaches the bound
# at a cost that grows with it and proves nothing (locksvc/deepseek's corpus spec: 50,000 states
# in 28 s; at 20,000 states 14 s, beside about 40 s for the rest of its P3). The behaviours it
# decides are far smaller: raftkvs's corpus specs have 16 states, the mutex reproduction 8,686.
WHOLE_STATES = 20_000


def settle(
    checker: Checker,
    windows: list[Window],
    order: list[int],
    followed: Followed,
    cap: int,
    folded: Collection[str] = (),
) -> Exploration | None:
    """Fail each undecided event whose pre-state or post-state no reachable state shows, when
    one run explores the spec's whole behaviour; None when nothing was undecided or no run was
    left. Taking an event needs a state showing its pre-state (except for an action that folds
    an unlogged step, `folded`, which may start from any state) and makes one showing its
    post-state."""
    budget = checker.budget
    pending = [e for e, r in sorted(followed.events.items()) if r.verdict == "undecided"]
    if not pending or budget.work_left() <= 0 or budget.runs >= MAX_RUNS:
        return None
    # Each distinct window state once (windows are JSON, so a state is its canonical text).
    index: dict[str, int] = {}

    def number(state: State) -> int:
        return index.setdefault(json.dumps(state, sort_keys=True), len(index))

    needs: dict[int, list[tuple[str, int]]] = {}
    for e in pending:
        window = windows[order[e - 1]]
        pre = [] if window["action"] in folded else [("pre-state", number(window["pre_state"]))]
        needs[e] = [*pre, ("post-state", number(window["post_state"]))]
    states = [json.loads(key) for key in index]
    carried = [windows[w] for w in order if windows[w].get("input") is not None]
    found = explore(checker, states, carried, min(cap, WHOLE_STATES))
    if not found.exhaustive:
        return found
    for e in pending:
        unshown = [side for side, k in needs[e] if k not in found.shown]
        if unshown:
            why = UNREACHABLE.format(side=unshown[0], distinct=found.distinct)
            followed.events[e] = EventResult(
                "fail", why, hint=HINT_UNREACHABLE, unreachable_in=found.distinct
            )
    return found
