"""Credited pre-states: the states of the spec a window's verdict is decided from.

A window fixes the schema variables it observes. The spec may keep more state (variables outside
the schema, schema variables the traces never observe such as spin's `callType`, keys a partial
window leaves out, variables behind a non-identity adapter mapping). A verdict counts only from a
pre-state the spec's own behaviour confirms (docs/ARCHITECTURE.md, "How a score cannot be had"):

1. built: every spec variable is an identity-mapped schema variable the window gives in full, or
   has a state mapping (`state:`) that the spec's reachable states confirm (credit.py) -> exactly
   one pre-state, built from the window.
2. explored: otherwise the case's pre-states are the spec's own states reachable from its Init
   within `conformance.depth` steps (at most `conformance.max_states` of them, in TLC's
   breadth-first order) under the pinned constants, computed once per spec: those whose schema
   projection agrees with the window's pre-state (every given key of a partly given function
   included). The window passes only if the action takes every one of them to its post-state
   (runner.py). When none agrees, the window is `undecided`: no state of the spec shows it.
The spec's TypeOK plays no part: it is what the spec says of its states, not what it does (a
TypeOK of `cheat = TRUE` would otherwise credit a state Init never leads to).
Each window reports how many pre-states it was checked from (`pre_state_candidates`).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from dataclasses import dataclass

from evaluation.phases.conformance import credit
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import Case
from evaluation.phases.conformance.diagnose import read_tagged
from evaluation.phases.conformance.runner import Budget, SetupError, run_module
from evaluation.phases.conformance.tlatext import tla_text
from evaluation.phases.conformance.vocab import FuncSet
from evaluation.tla.tlcvalue import to_json_like
from evaluation.tla.values import to_tla

MAX_COMPLETIONS = 729  # rule 3's combinations per window (etcd: 3 nodes x 3 terms = 27)


@dataclass
class Explored:
    """One reachable state of the spec that agrees with some window, as exploration printed
    it."""

    values: tuple  # the spec variables' values, in plan.spec_variables order
    shows: set  # the distinct pre-states (pre_key) it agrees with, as TLC compared them


@dataclass
class Exploration:
    """What one breadth-first run from Init saw (the states themselves are not all printed:
    TLC's output is bounded, so only what a check needs is)."""

    states: list[Explored]  # the states some window that needs a candidate agrees with
    reached: int  # distinct states TLC found
    mismatches: dict  # checked state mapping -> (projection, spec value, mapped value)
    leaves: dict  # state-mapped variable -> the leaf values it has in some reached state
    cut: str  # a note when TLC's output was cut short


def choose(plan: gen.Plan, spec_text: str, cases: list[Case], contract, budget: Budget):
    """(AuxRule, description, state-mapping refusals) for this spec and these cases; sets
    `plan.refused_state` to the state-mapped variables the spec's behaviour did not confirm."""
    if not cases:
        return gen.AuxRule("pinned"), "no checkable windows", []
    if not gen.state_mapped(plan) and all(gen.built(plan, c) for c in cases):
        return gen.AuxRule("pinned"), "every spec variable is pinned by the window (rule 1)", []
    if not gen.state_mapped(plan) and all(
        gen.built(plan, c) or gap_completions(plan, c, contract) for c in cases
    ):
        rule = explored(plan, [], cases, contract)
        return rule, _description(plan, cases, rule, None, 0), []
    depth = int(contract.budget("conformance", "depth"))
    cap = int(contract.budget("conformance", "max_states"))
    refusals: list[dict] = []
    checked = credit.checked_on_states(plan)
    while checked:
        # (a) first, in a run of its own: a mapping that does not read back may print on every
        # state, which must not crowd out what the second run reads.
        try:
            seen = explore(plan, spec_text, depth, cap, budget, [], checked, [])
        except credit.MappingError as exc:
            refusals += exc.refusals()
            plan.refused_state |= set(exc.variables)
            checked = [v for v in checked if v not in exc.variables]
            continue
        refusals += [credit.reads_back(v, seen) for v in checked if v in seen.mismatches]
        break
    plan.refused_state |= {r["variable"] for r in refusals}
    # Candidates for every case no state mapping builds (as if all were refused, so that a
    # refusal by (b) needs no further run), and the state-mapped variables' values for (b).
    literal = dataclasses.replace(plan, refused_state=set(plan.adapter.state))
    wanted = [
        c for c in cases if not gen.built(literal, c) and not gap_completions(literal, c, contract)
    ]
    seen = explore(plan, spec_text, depth, cap, budget, wanted, [], gen.state_mapped(plan))
    refusals += credit.judge(plan, spec_text, seen, cases, budget)
    plan.refused_state |= {r["variable"] for r in refusals}
    rule = explored(plan, seen.states, cases, contract)
    return rule, _description(plan, cases, rule, seen, depth), refusals


def _description(plan, cases, rule: gen.AuxRule, seen: Exploration | None, depth: int) -> str:
    built = sum(1 for c in cases if gen.built(plan, c))
    if rule.kind == "pinned":
        return (
            "every spec variable is pinned by the window or built by a credited state mapping "
            "(rule 1)"
        )
    gaps = sum(1 for g in rule.gaps if g[0])
    explored_cases = len(cases) - built - gaps
    parts = [f"{built} case(s) built from the window (rule 1)"]
    if explored_cases:
        parts.append(
            f"{explored_cases} from the states reachable from Init in <= {depth} steps "
            f"({seen.reached} found{seen.cut}) that agree with the window, each of which must "
            f"pass (rule 2; {len(rule.unmatched)} agree with none: undecided)"
        )
    if gaps:
        parts.append(
            f"{gaps} from every value the contract allows for an observed variable the window "
            "leaves out, each of which must pass (rule 3)"
        )
    return "; ".join(parts)


def explored(plan: gen.Plan, states: list[Explored], cases: list[Case], contract) -> gen.AuxRule:
    """Rules 2 and 3 for the cases not built from their window."""
    decided = event_decided(plan, contract)
    per_case, unmatched, gaps = [], [], []
    for ci, case in enumerate(cases):
        completion = gap_completions(plan, case, contract)
        gaps.append(completion or ([], []))
        if gen.built(plan, case) or completion:
            per_case.append([])
            continue
        # 1-based: they index a TLA+ tuple.
        key = pre_key(plan, case)
        matching = [i for i, s in enumerate(states, 1) if key in s.shows]
        if not matching:
            unmatched.append(ci)
        per_case.append(matching)
    if all(gen.built(plan, c) for c in cases):
        return gen.AuxRule("pinned")
    return gen.AuxRule(
        "explored",
        list(plan.spec_variables),
        [_tuple_text(s.values) for s in states],
        per_case,
        unmatched,
        gaps,
        _classes(plan, states, decided),
    )


def event_decided(plan: gen.Plan, contract) -> set[str]:
    """Spec variables holding an `event_decides` schema variable as it is (contract.py)."""
    return {
        v
        for v, var in contract.schema.items()
        if var.event_decides
        and v in plan.spec_variables
        and plan.adapter.variables.get(v, v).strip() == v
        and v not in plan.adapter.state
    }


def _classes(plan: gen.Plan, states: list[Explored], decided: set[str]) -> dict[int, int]:
    """Candidate number -> its class: candidates that differ only in event-decided variables
    share one, and a window passes when each class has a candidate that passes."""
    if not decided:
        return {}
    keep = [i for i, v in enumerate(plan.spec_variables) if v not in decided]
    keys: dict[tuple, int] = {}
    return {
        j: keys.setdefault(tuple(s.values[i] for i in keep), len(keys))
        for j, s in enumerate(states, 1)
    }


def gap_completions(plan: gen.Plan, case: Case, contract) -> tuple[list[str], list[str]] | None:
    """Rule 3: a case built from its window but for schema variables the contract says the
    traces observe and this window leaves out (a gap in the record, such as etcd's
    ElectionTimeout windows without logLastTerm) -> (those variables, every combination of the
    values the contract allows them, as TLA+ tuples); None when that is not the case."""
    pinned = set(gen.pinned_vars(plan, case))
    missing = [v for v in plan.spec_variables if v not in pinned]
    if not missing or any(not _gap(plan, case, contract, v) for v in missing):
        return None
    options = [_values(plan.vocab[v]) for v in missing]
    if any(o is None for o in options):
        return None
    total = 1
    for o in options:
        total *= len(o)
    if not total or total > MAX_COMPLETIONS:
        return None
    combos = ["<<" + ", ".join(c) + ">>" for c in itertools.product(*options)]
    return missing, combos


def _gap(plan: gen.Plan, case: Case, contract, var: str) -> bool:
    schema = contract.schema.get(var)
    return (
        schema is not None
        and schema.observed
        and var not in case.pre
        and var not in plan.views
        and var not in plan.adapter.state
        and plan.adapter.variables.get(var, var).strip() == var
    )


def _values(vocab) -> list[str] | None:
    """Every value of a finite vocabulary (a function set over finite keys included)."""
    if isinstance(vocab, FuncSet):
        keys, codomain = vocab.keys(), _values(vocab.codomain)
        if keys is None or codomain is None or len(codomain) ** len(keys) > MAX_COMPLETIONS:
            return None
        return [
            "(" + " @@ ".join(f"{to_tla(k)} :> {v}" for k, v in zip(keys, row, strict=True)) + ")"
            if keys
            else "<<>>"
            for row in itertools.product(codomain, repeat=len(keys))
        ]
    values = vocab.finite()
    return None if values is None else [to_tla(v) for v in values]


def explore(
    plan: gen.Plan,
    spec_text: str,
    depth: int,
    cap: int,
    budget: Budget,
    wanted: list[Case],
    checked: list[str],
    valued: list[str],
) -> Exploration:
    """One breadth-first run from Init, `depth` steps and `cap` distinct states at most. It
    prints the states some case of `wanted` agrees with, where a state mapping of `checked`
    does not read back, and the values of the spec variables `valued` (credit.py)."""
    module = exploration_module(plan, depth, cap, wanted, checked, valued)
    run = run_module(plan, spec_text, module, budget)
    if run.status not in ("ok",):
        problem = credit.evaluation_problem(plan, module, run, checked)
        if problem:
            raise problem
        if checked:
            # Not attributed to one mapping: if the spec explores without them, they all are.
            explore(plan, spec_text, depth, cap, budget, [], [], [])
            raise credit.MappingError(list(checked), run.note or "TLC stopped with an error")
        raise SetupError(f"exploring the spec's reachable states failed: {run.note}", run.messages)
    pres = _pres(plan, wanted)
    states: list[Explored] = []
    known = set()
    for item in read_tagged(run.output, plan.nonce, "r"):
        if item[1] not in known:
            known.add(item[1])
            states.append(Explored(item[1], {pres[k - 1] for k in item[2].items}))
    mismatches: dict = {}
    for item in read_tagged(run.output, plan.nonce, "x"):
        var = checked[item[1] - 1]
        if var not in mismatches:
            proj = dict(zip(plan.observed, to_json_like(item[2]), strict=True))
            mismatches[var] = (proj, item[3], item[4])
    leaves: dict = {v: set() for v in valued}
    for item in read_tagged(run.output, plan.nonce, "l"):
        for var, value in zip(valued, item[1], strict=True):
            leaves[var] |= credit.leaves(value)
    found = _DISTINCT.findall(run.output)
    cut = "; TLC's output was cut short, so fewer of them are known" if run.truncated else ""
    return Exploration(states, int(found[-1]) if found else len(states), mismatches, leaves, cut)


_DISTINCT = re.compile(r"(\d+) distinct states found")


def exploration_module(
    plan: gen.Plan, depth: int, cap: int, wanted: list[Case], checked: list[str], valued
) -> str:
    names = ", ".join(plan.spec_variables)
    prints = []
    pres = _pres(plan, wanted)
    if pres:
        shows = gen.n(plan, "shows")
        prints.append(
            f"  /\\ LET {shows} == {_agreeing(plan, gen.n(plan, 'WP'))} IN IF {shows} # {{}} "
            f'THEN PrintT(<<"{plan.nonce}r", <<{names}>>, {shows}>>) ELSE TRUE'
        )
    prints += [f"  /\\ {credit.check_operator(plan, v)}" for v in checked]
    if valued:
        prints.append(f'  /\\ PrintT(<<"{plan.nonce}l", <<{", ".join(valued)}>>>>)')
    lines = [
        f"---- MODULE {gen.module_name(plan)} ----",
        # Naturals for the cap's `<`, as in P2's wrapper (a spec P2 runs runs here).
        f"EXTENDS {plan.spec_module}, TLC, Naturals",
        *gen.prelude(plan),
        *gen._projection(plan),
        *([f"{gen.n(plan, 'WP')} == {gen._tuple(pres)}"] if pres else []),
        *credit.mapping_definitions(plan, checked),
        f"{gen.n(plan, 'Init')} == {plan.init}",
        f"{gen.n(plan, 'Next')} ==",
        *(prints or ["  /\\ TRUE"]),
        # The bounds stop TLC's own search (P2's bound, read in the action: a state at the last
        # level is printed but not expanded), not only what is read back.
        f'  /\\ TLCGet("level") < {depth + 1} /\\ TLCGet("distinct") < {cap}',
        f"  /\\ {plan.next}",
        "====",
    ]
    return "\n".join(lines) + "\n"


def pre_key(plan: gen.Plan, case: Case) -> str:
    """A case's pre-state constraints as TLC checks them (cases with equal keys agree with the
    same states)."""
    return gen._constraints(plan, case.pre, set())


def _pres(plan: gen.Plan, cases: list[Case]) -> list[str]:
    return list(dict.fromkeys(pre_key(plan, c) for c in cases))


def _agreeing(plan: gen.Plan, table: str) -> str:
    """The numbers of the constraint tuples of `table` the current state's projection meets
    (a partly given function on its given keys, a viewed variable through its view)."""
    k, i, cs = gen.n(plan, "k"), gen.n(plan, "i"), gen.n(plan, "cs")
    value = f"{gen.n(plan, 'W')}({cs}[{i}][1])"
    return (
        f"{{{k} \\in DOMAIN {table} : LET {cs} == {table}[{k}] IN "
        f"\\A {i} \\in DOMAIN {cs} : {gen.n(plan, 'Sat')}({value}, {cs}[{i}])}}"
    )


def _tuple_text(values: tuple) -> str:
    return "<<" + ", ".join(tla_text(v) for v in values) + ">>"
