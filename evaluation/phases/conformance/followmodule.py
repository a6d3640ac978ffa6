"""The wrapper module that follows many traces in one TLC run (follow.py runs it).

It EXTENDS the spec, as the per-window wrapper did, and every name it adds is `_<Name>_<nonce>`.
Its variables: `_t` the trace being followed (0 before its first event: the steps from Init to
the first event are shared by every trace, so they are explored once), `_i` the position of the
next event in it, `_g` the steps taken since the last event.

- Init: the spec's Init (the adapter's), `_t = 0`, `_i = 1`, `_g = 0`. No state is built from a
  window: every state is one the spec reaches by its own steps.
- Take(e): event e (trace `_t`, position `_i`) as one step of its mapped action, with the actor
  and message bound: the projection shows the event's pre-state before and its post-state after,
  and the step is one of the spec's Next (`Spec`; an event that carries the trace's message is
  taken by its mapped action alone: docs/decisions/0037-events-are-steps-of-next.md); the
  nonce-tagged `v` print is the last conjunct, so it prints only for a real successor.
- Gap: one step of the spec's Next, at most `Bound(e)` of them before event e. Every gap step
  keeps each slot (variable, or key of a function) that the previous event's post-state and
  this event's pre-state both give with the same value: what the trace observed unchanged. In
  a quiet gap (the trace observed no change) that is every slot both give, viewed variables
  included: a step the trace could not see. A slot a window leaves out (e.g. the phase of a
  thread the log does not know yet) is not observed there and may change. In a free gap the
  event's own pre-state check decides where the gap may end.
- Resync(e), for an event an earlier run found the spec cannot take: the state shows the
  event's post-state, reached from the states at its position by the gap's steps (the gap
  before a skipped event is free and `resync` steps longer, or narrowed: below). It prints `y`
  with e and the gap's steps.
- PickUp(e), for a skipped event whose resynchronisation an earlier run did not find (`Far`):
  the state shows the pre-state of a later event f of the same trace (at most JUMP_AHEAD
  ahead), reached from the states at e's position by the same steps; the trace goes on from f,
  which must still be taken by its own action. It prints `j` with f and the gap's steps. The
  events between are not decided. A skipped event whose crossing (Resync or PickUp) a run
  found before its state bound cut the trace short has its gap narrowed to those steps in the
  next run (`FollowRun.narrowed`; docs/decisions/0039).
- Neg(e): for each negative attached to event e (its pre-state is the event's), the negative's
  action (with its actor and message; a step of Next as in Take) from a state showing the
  event's pre-state to the negative's post-state prints `n` and then is FALSE (adds no state).
- Show(e): at a skipped event whose failure is new, each state showing the pre-state is
  printed (`f`) for the diagnosis, and adds no state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import Case
from evaluation.phases.conformance.traces import agree
from evaluation.tla.values import to_tla
from evaluation.windows.window import State, Window

PRINTED, SHOWN = 1, 2  # TLC register numbers
SHOWN_STATES = 200  # frontier states printed per run, for the diagnosis
TAGS = {"v": 1, "y": 2, "p": 3, "j": 4}
JUMP_AHEAD = 64  # later events a trace may be picked up at, after one the spec cannot resync


@dataclass
class Bounds:
    quiet: int  # steps in a quiet gap
    free: int  # steps in a free gap
    most: int  # steps in a free gap lengthened by the events the trace logged in it
    resync: int  # further steps after an event the spec cannot take
    states: int  # distinct states of one run


@dataclass
class FollowRun:
    """What one run follows: `traces[k]` the global event numbers (1-based) of a trace, in
    order; per event (1-based, index - 1 into the lists) its window, quiet flag, skip flag."""

    traces: list[list[int]]
    windows: list[Window]
    quiet: list[bool]
    skip: list[bool]
    fresh: list[bool]  # a skipped event whose failure this run is the first to show
    # an event whose action the contract says folds an unlogged step before its pre-state
    # (`folded_steps`), after a free gap: it may start from any state at its position
    lax: list[bool] = field(default_factory=list)
    negatives: list[tuple[int, Case]] = field(default_factory=list)  # (event, negative case)
    # per event, the events the trace logged between it and the previous one (no window)
    logged: list[int] = field(default_factory=list)
    # a skipped event the spec could not resynchronise at: it may pick up a later event
    far: list[bool] = field(default_factory=list)
    # per event, the steps its gap is narrowed to (None: not narrowed): a skipped event whose
    # crossing an earlier run found after that many steps before its bound cut the trace short
    narrowed: list[int | None] = field(default_factory=list)


def build(
    plan: gen.Plan, run: FollowRun, actions: list[str], bounds: Bounds, registers: bool = True
) -> str:
    """The module; `registers` False: without TLC's registers (every tag printed each time
    and every frontier state), for a module that cannot be trusted with `TLCSet`."""
    t, i, g = (gen.n(plan, x) for x in ("tr", "pos", "gap"))
    lines = [
        f"---- MODULE {gen.module_name(plan)} ----",
        f"EXTENDS {plan.spec_module}, TLC, Naturals",
        f"VARIABLES {t}, {i}, {g}",
        *gen.prelude(plan),
        *gen._projection(plan),
        *_tables(plan, run, actions, bounds),
        *_operators(plan, run, actions, registers),
        f"{gen.n(plan, 'Init')} == {plan.init} /\\ {t} = 0 /\\ {i} = 1 /\\ {g} = 0",
        # TLC's registers (one worker): the tags already printed, and the frontier states
        # printed, so that the output grows with the events, not with the states.
        *([f"  /\\ TLCSet({PRINTED}, {{}}) /\\ TLCSet({SHOWN}, 0)"] if registers else []),
        *_next(plan, bounds),
        "====",
    ]
    return "\n".join(lines) + "\n"


def _tables(plan: gen.Plan, run: FollowRun, actions: list[str], bounds: Bounds) -> list[str]:
    tables = _Tables(plan, run, actions, bounds)
    return [*tables.traces(), *tables.events(), *tables.gaps(), *tables.negatives()]


class _Tables:
    """The constant tables of one following module (definitions named through the plan).

    Constraints, states and messages are written once each, in the tables CI (one constraint
    `<<var, partial?, key, value>>`), CS (a state: its constraints' numbers) and MV, and the
    per-event and per-negative tables give their numbers: a trace repeats its states (and the
    negatives their posts), and TLC's parser ran out of heap on etcd's 1,060 events written out
    in full (3.8 MB, 3,214 negatives), the run was cut and its traces ran again in halves."""

    def __init__(self, plan: gen.Plan, run: FollowRun, actions: list[str], bounds: Bounds):
        self.plan, self.run, self.actions, self.bounds = plan, run, actions, bounds
        self.count = len(run.windows)
        self.items: dict[str, int] = {}
        self.states: dict[str, int] = {}
        self.messages: dict[str, int] = {}
        self.neg_post = self.neg_msg = ""  # numbered by `events`, with every other row
        self.far = run.far or [False] * self.count
        self.firsts = [events[0] for events in run.traces]
        self.previous = {
            e: events[p - 1] for events in run.traces for p, e in enumerate(events) if p
        }

    def define(self, name: str, value: str) -> str:
        return f"{gen.n(self.plan, name)} == {value}"

    def traces(self) -> list[str]:
        run, count = self.run, self.count
        owner = {e: k for k, events in enumerate(run.traces, 1) for e in events}
        position = {e: p for events in run.traces for p, e in enumerate(events, 1)}
        return [
            self.define("NT", str(len(run.traces))),
            self.define("First", _seq(self.firsts)),
            self.define("Last", _seq([events[-1] for events in run.traces])),
            self.define("Tr", _seq([owner[e] for e in range(1, count + 1)])),
            self.define("Pos", _seq([position[e] for e in range(1, count + 1)])),
        ]

    def events(self) -> list[str]:
        plan, ws = self.plan, self.run.windows
        actors = [gen.adapter_expr(plan, plan.adapter.actor_expr(w["actor"])) for w in ws]
        # Every row that numbers into the tables is made before CI, CS and MV are written, in
        # one order (the numbers, and so the module's text, are the same for the same run).
        negatives = self.run.negatives
        keeps = _seq(self.kept())
        pre = _seq([self.state(w["pre_state"]) for w in ws])
        post = _seq([self.state(w["post_state"]) for w in ws])
        self.neg_post = _seq([self.state(c.post) for _, c in negatives] or [self.state({})])
        msg = _seq([self.message(w.get("input")) for w in ws])
        self.neg_msg = _seq([self.message(c.input) for _, c in negatives] or [self.message(None)])
        return [
            self.define("A", _seq([self.actions.index(w["action"]) + 1 for w in ws])),
            self.define("Actor", gen._tuple(actors)),
            self.define("CI", gen._tuple(list(self.items) or ["0"])),
            self.define("CS", gen._tuple(list(self.states))),
            self.define("MV", gen._tuple(list(self.messages))),
            self.define("Msg", msg),
            # An event that carries the trace's message is taken by its mapped action with that
            # message bound; the others must be steps of Next too (`Spec`, see `_operators`).
            self.define("Carried", _flags([w.get("input") is not None for w in ws])),
            self.define("P", pre),
            self.define("Q", post),
            self.define("K", keeps),
        ]

    def gaps(self) -> list[str]:
        plan, run, count = self.plan, self.run, self.count
        views = [
            "{" + ", ".join(quiet_views(plan, run.windows, self.previous, run, e)) + "}"
            for e in range(1, count + 1)
        ]
        bound = [self.bound(e) for e in range(1, count + 1)]
        first_bound = max(bound[e - 1] for e in self.firsts)
        return [
            # A quiet gap's viewed variables the trace shows on both sides (whole, through the
            # view).
            self.define("QV", gen._tuple(views)),
            self.define("Quiet", _flags(run.quiet)),
            self.define("Lax", _flags(run.lax or [False] * count)),
            self.define("Skip", _flags(run.skip)),
            self.define("Fresh", _flags(run.fresh)),
            self.define("Later", gen._tuple(self.later())),
            self.define("Bound", _seq(bound)),
            self.define("FirstBound", str(first_bound)),
        ]

    def negatives(self) -> list[str]:
        """The negatives' tables; their states and messages were numbered by `events`."""
        plan, run = self.plan, self.run
        neg_at: dict[int, list[int]] = {}
        for k, (e, _case) in enumerate(run.negatives, 1):
            neg_at.setdefault(e, []).append(k)
        at = ["{" + ", ".join(map(str, neg_at.get(e, []))) + "}" for e in range(1, self.count + 1)]
        actions = [str(self.actions.index(c.action) + 1) for _, c in run.negatives]
        actors = [
            gen.adapter_expr(plan, plan.adapter.actor_expr(c.actor)) for _, c in run.negatives
        ]
        return [
            self.define("NegAt", gen._tuple(at)),
            self.define("NQ", self.neg_post),
            self.define("NA", gen._tuple(actions or ["0"])),
            self.define("NActor", gen._tuple(actors or ["0"])),
            self.define("NMsg", self.neg_msg),
            self.define(
                "NCarried", _flags([c.input is not None for _, c in run.negatives] or [False])
            ),
        ]

    def bound(self, e: int) -> int:
        run, bounds = self.run, self.bounds
        extra = run.logged[e - 1] if run.logged else 0
        free = min(bounds.free + extra, max(bounds.most, bounds.free))
        if run.skip[e - 1]:
            depth = run.narrowed[e - 1] if run.narrowed else None
            return free + bounds.resync if depth is None else min(depth, free + bounds.resync)
        return bounds.quiet if run.quiet[e - 1] else free

    def kept(self) -> list[str]:
        """Per event, the state a gap before it keeps. A gap keeps what the trace shows
        unchanged across it; after an event the spec could not resynchronise at, the gap leads
        to a later event instead, and the trace shows what changed by then in that event's
        pre-state: it keeps nothing."""
        run, ws, previous, far = self.run, self.run.windows, self.previous, self.far
        return [
            self.state(kept_slots(self.plan, ws[previous[e] - 1], ws[e - 1], run.skip[e - 1]))
            if e in previous
            and not far[e - 1]
            and not (run.logged and run.logged[e - 1] and not run.quiet[e - 1])
            else self.state({})
            for e in range(1, self.count + 1)
        ]

    def later(self) -> list[str]:
        """Per event after which the trace may be picked up again, the events it may be picked
        up at."""
        run, far = self.run, self.far
        by_event = {
            e: "{" + ", ".join(map(str, events[p + 1 : p + 1 + JUMP_AHEAD])) + "}"
            if far[e - 1]
            else "{}"
            for events in run.traces
            for p, e in enumerate(events)
        }
        return [by_event[e] for e in range(1, self.count + 1)]

    def state(self, given: State) -> str:
        numbers = [_ref(self.items, c) for c in gen.constraint_items(self.plan, given, set())]
        return _ref(self.states, "<<" + ", ".join(numbers) + ">>")

    def message(self, value: object) -> str:
        return _ref(self.messages, to_tla(value) if value is not None else "0")


def _ref(table: dict[str, int], text: str) -> str:
    return str(table.setdefault(text, len(table) + 1))


def _seq(items: Iterable[object]) -> str:
    return "<<" + ", ".join(map(str, items)) + ">>"


def _flags(values: list[bool]) -> str:
    return gen._tuple([str(v).upper() for v in values])


def quiet_views(
    plan: gen.Plan, ws: list[Window], previous: dict[int, int], run: FollowRun, e: int
) -> list[str]:
    """The observed indices of the viewed variables both sides of a quiet gap give (kept_slots
    leaves views out; in a quiet gap the trace shows them unchanged through the view)."""
    if e not in previous or not run.quiet[e - 1] or run.skip[e - 1]:
        return []
    given = set(ws[previous[e] - 1]["post_state"]) & set(ws[e - 1]["pre_state"])
    return [str(plan.observed.index(v) + 1) for v in sorted(given & set(plan.views))]


def kept_slots(plan: gen.Plan, before: Window, event: Window, skipped: bool) -> State:
    """The slots (variables given whole, or keys of functions) on which the previous event's
    post-state and this event's pre-state (and, for a skipped event, its post-state) agree: a
    gap between them keeps each as it was (the trace shows it unchanged across the gap; a
    change there and back is not followed). Not used for a free gap in which the trace logged
    events (seq numbers): there a slot equal at both ends may have changed and come back
    (a message sent and received). Variables compared through a contract view are
    left out (the view may fold a change away)."""
    states = [before["post_state"], event["pre_state"]]
    if skipped:
        states.append(event["post_state"])
    out: State = {}
    common = set.intersection(*(set(s) for s in states)) - set(plan.views)
    for var in sorted(common):
        values = [s[var] for s in states]
        if all(isinstance(v, dict) for v in values):
            keys = set.intersection(*(set(v) for v in values))
            same = {
                k: values[0][k]
                for k in sorted(keys)
                if all(agree({var: values[0][k]}, {var: v[k]}) for v in values[1:])
            }
            if same:
                out[var] = same
        elif all(agree({var: values[0]}, {var: v}) for v in values[1:]):
            out[var] = values[0]
    return out


def _holds(plan: gen.Plan, table: str, e: str, primed: bool) -> str:
    cs, x, c = gen.n(plan, "cs"), gen.n(plan, "x"), gen.n(plan, "ci")
    value = f"{gen.n(plan, 'W')}({c}[1])"
    if primed:
        value = f"({value})'"
    sat = gen.n(plan, "Sat")
    # `table` gives each event's (or negative's) state number in CS; a state there is the
    # numbers of its constraints in CI.
    return (
        f"LET {cs} == {gen.n(plan, 'CS')}[{table}[{e}]] IN \\A {x} \\in DOMAIN {cs} : "
        f"LET {c} == {gen.n(plan, 'CI')}[{cs}[{x}]] IN {sat}({value}, {c})"
    )


def _operators(plan: gen.Plan, run: FollowRun, actions: list[str], registers: bool) -> list[str]:
    n = gen.n
    e, k, f = n(plan, "e"), n(plan, "k"), n(plan, "f")
    mv = n(plan, "MV")
    bound = {"actor": f"{n(plan, 'Actor')}[{e}]", "msg": f"{mv}[{n(plan, 'Msg')}[{e}]]"}
    lines = [
        f"{n(plan, 'Do')}{a}({e}) == {gen.adapter_expr(plan, plan.adapter.actions[action], bound)}"
        for a, action in enumerate(actions, start=1)
    ]
    arms = " [] ".join(
        f"{n(plan, 'A')}[{e}] = {a} -> {n(plan, 'Do')}{a}({e})" for a in range(1, len(actions) + 1)
    )
    # A negative's own action, actor and message (a neg-step one is not the event's action).
    neg_bound = {"actor": f"{n(plan, 'NActor')}[{k}]", "msg": f"{mv}[{n(plan, 'NMsg')}[{k}]]"}
    lines += [
        f"{n(plan, 'NDo')}{a}({k}) == "
        f"{gen.adapter_expr(plan, plan.adapter.actions[action], neg_bound)}"
        for a, action in enumerate(actions, start=1)
    ]
    neg_arms = " [] ".join(
        f"{n(plan, 'NA')}[{k}] = {a} -> {n(plan, 'NDo')}{a}({k})"
        for a in range(1, len(actions) + 1)
    )
    t, i, g = n(plan, "tr"), n(plan, "pos"), n(plan, "gap")
    spec_vars = ", ".join(plan.spec_variables)
    first, last = n(plan, "First"), n(plan, "Last")
    c, code, x = n(plan, "c"), n(plan, "code"), n(plan, "depth")
    tags = " [] ".join(f'{c} = {number} -> "{plan.nonce}{tag}"' for tag, number in TAGS.items())
    lines += [
        # Print a tag once per run (the tags printed are kept as numbers: no nonce in them).
        # `New` is TRUE the first time, and records it (its first conjunct short-circuits).
        *(
            [
                f"{n(plan, 'New')}({c}, {e}) == LET {code} == {len(TAGS) + 1} * {e} + {c} IN",
                f"  {code} \\notin TLCGet({PRINTED})",
                f"  /\\ TLCSet({PRINTED}, TLCGet({PRINTED}) \\cup {{{code}}})",
                f"{n(plan, 'More')} == TLCGet({SHOWN}) < {SHOWN_STATES} "
                f"/\\ TLCSet({SHOWN}, TLCGet({SHOWN}) + 1)",
            ]
            if registers
            else [f"{n(plan, 'New')}({c}, {e}) == TRUE", f"{n(plan, 'More')} == TRUE"]
        ),
        f"{n(plan, 'Once')}({c}, {e}) == "
        f"{n(plan, 'New')}({c}, {e}) => PrintT(<<CASE {tags}, {e}>>)",
        f"{n(plan, 'OnceAt')}({c}, {e}, {x}) == "
        f"{n(plan, 'New')}({c}, {e}) => PrintT(<<CASE {tags}, {e}, {x}>>)",
        # A step of the spec's behaviour: the mapped action's step must also be one of Next
        # (or leave the spec's variables as they are). An operator the spec never lets act
        # (a thread its Next leaves out) takes no event and accepts no negative.
        f"{n(plan, 'Spec')} == ({plan.next}) \\/ UNCHANGED <<{spec_vars}>>",
        f"{n(plan, 'Do')}({e}) == CASE {arms}",
        f"{n(plan, 'NDo')}({k}) == CASE {neg_arms}",
        f"{n(plan, 'Pre')}({e}) == {_holds(plan, n(plan, 'P'), e, False)}",
        f"{n(plan, 'Post')}({e}) == {_holds(plan, n(plan, 'Q'), e, True)}",
        f"{n(plan, 'Shows')}({e}) == {_holds(plan, n(plan, 'Q'), e, False)}",
        f"{n(plan, 'Keeps')}({e}) == {_holds(plan, n(plan, 'K'), e, True)}",
        f"{n(plan, 'NPost')}({k}) == {_holds(plan, n(plan, 'NQ'), k, True)}",
        # The event the current state is before: one per trace while no trace is chosen.
        f"{n(plan, 'Cur')} == IF {t} = 0 THEN {{{first}[{k}] : {k} \\in 1..{n(plan, 'NT')}}}"
        f" ELSE IF {first}[{t}] + {i} - 1 <= {last}[{t}] THEN {{{first}[{t}] + {i} - 1}} ELSE {{}}",
        f"{n(plan, 'Moved')}({e}) == {t}' = {n(plan, 'Tr')}[{e}]"
        f" /\\ {i}' = {n(plan, 'Pos')}[{e}] + 1 /\\ {g}' = 0",
        # An event starts from a state showing its pre-state; after a free gap, an action the
        # contract says folds an unlogged step of the system (`folded_steps`) from any state
        # at its position.
        f"{n(plan, 'From')}({e}) == {n(plan, 'Pre')}({e}) \\/ {n(plan, 'Lax')}[{e}]",
        f"{n(plan, 'Take')}({e}) ==",
        f"  /\\ ~{n(plan, 'Skip')}[{e}]",
        f"  /\\ {n(plan, 'From')}({e})",
        f"  /\\ {n(plan, 'Do')}({e})",
        f"  /\\ {n(plan, 'Post')}({e})",
        f"  /\\ IF {n(plan, 'Carried')}[{e}] THEN TRUE ELSE {n(plan, 'Spec')}",
        f"  /\\ {n(plan, 'Moved')}({e})",
        f"  /\\ {n(plan, 'Once')}({TAGS['v']}, {e})",
        f"{n(plan, 'Resync')}({e}) ==",
        f"  /\\ {n(plan, 'Skip')}[{e}]",
        f"  /\\ {n(plan, 'Shows')}({e})",
        f"  /\\ UNCHANGED <<{spec_vars}>>",
        f"  /\\ {n(plan, 'Moved')}({e})",
        f"  /\\ {n(plan, 'OnceAt')}({TAGS['y']}, {e}, {g})",
        # After an event the spec can neither take nor resynchronise at, a later event whose
        # pre-state its own steps reach: the trace goes on from there (that event is taken
        # like any other), and the events between decide nothing.
        f"{n(plan, 'PickUp')}({e}) ==",
        f"  /\\ {n(plan, 'Skip')}[{e}]",
        f"  /\\ \\E {f} \\in {n(plan, 'Later')}[{e}] :",
        f"       /\\ {n(plan, 'Pre')}({f})",
        f"       /\\ UNCHANGED <<{spec_vars}>>",
        f"       /\\ {t}' = {n(plan, 'Tr')}[{f}] /\\ {i}' = {n(plan, 'Pos')}[{f}] /\\ {g}' = 0",
        # With the gap's steps it took: a run the bound cut short is narrowed to them.
        f"       /\\ {n(plan, 'OnceAt')}({TAGS['j']}, {f}, {g})",
        f"{n(plan, 'Neg')}({e}) ==",
        f"  /\\ {n(plan, 'NegAt')}[{e}] # {{}}",
        # Negatives only from states showing the window's pre-state: the system never made
        # them from there; from another state it might have.
        f"  /\\ {n(plan, 'Pre')}({e})",
        f"  /\\ \\E {k} \\in {n(plan, 'NegAt')}[{e}] :",
        f"       /\\ {n(plan, 'NDo')}({k})",
        f"       /\\ {n(plan, 'NPost')}({k})",
        f"       /\\ IF {n(plan, 'NCarried')}[{k}] THEN TRUE ELSE {n(plan, 'Spec')}",
        f'       /\\ PrintT(<<"{plan.nonce}n", {k}>>)',
        "       /\\ FALSE",
        # A state at the event's position that shows its pre-state (`p`); and, at a skipped
        # event whose failure is new, the state itself for the diagnosis (`f`).
        f"{n(plan, 'Show')}({e}) ==",
        f"  /\\ {n(plan, 'Pre')}({e})",
        f"  /\\ {n(plan, 'Once')}({TAGS['p']}, {e})",
        f"  /\\ {n(plan, 'Fresh')}[{e}]",
        f"  /\\ {n(plan, 'More')}",
        f'  /\\ PrintT(<<"{plan.nonce}f", {e}, <<{spec_vars}>>>>)',
        "  /\\ FALSE",
    ]
    return lines


def _next(plan: gen.Plan, bounds: Bounds) -> list[str]:
    n = gen.n
    t, i, g, e, j = (n(plan, x) for x in ("tr", "pos", "gap", "e", "j"))
    quiet = f"{n(plan, 'Quiet')}[{e}] /\\ ~{n(plan, 'Skip')}[{e}]"
    return [
        f"{n(plan, 'Gap')} ==",
        f"  /\\ {n(plan, 'Cur')} # {{}}",
        f"  /\\ {g} < IF {t} = 0 THEN {n(plan, 'FirstBound')} ELSE "
        f"{n(plan, 'Bound')}[{n(plan, 'First')}[{t}] + {i} - 1]",
        f"  /\\ {plan.next}",
        # A quiet gap: only steps the trace could not see.
        f"  /\\ \\A {e} \\in {n(plan, 'Cur')} : ({quiet}) => "
        f"\\A {j} \\in {n(plan, 'QV')}[{e}] : {n(plan, 'W')}({j})' = {n(plan, 'W')}({j})",
        f"  /\\ \\A {e} \\in {n(plan, 'Cur')} : {n(plan, 'Keeps')}({e})",
        f"  /\\ {g}' = {g} + 1 /\\ UNCHANGED <<{t}, {i}>>",
        f"{n(plan, 'Next')} ==",
        f'  /\\ TLCGet("distinct") < {bounds.states}',
        f"  /\\ \\/ \\E {e} \\in {n(plan, 'Cur')} :",
        f"          \\/ {n(plan, 'Take')}({e})",
        f"          \\/ {n(plan, 'Resync')}({e})",
        f"          \\/ {n(plan, 'PickUp')}({e})",
        f"          \\/ {n(plan, 'Neg')}({e})",
        f"          \\/ {n(plan, 'Show')}({e})",
        f"     \\/ {n(plan, 'Gap')}",
    ]
