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
   breadth-first order) under the pinned constants whose schema projection agrees with the
   window's pre-state (every given key of a partly given function included). The window passes
   only if the action takes every one of them to its post-state; they are found, and the case
   decided, in one exploration run (explore.py). When none agrees, the window is `undecided`:
   no state of the spec shows it. Candidates that differ only in a schema variable the contract
   marks `event_decides` form one class, one of which must pass.
3. gap: a case built from its window but for schema variables the contract says the traces
   observe and the window leaves out: every value the contract allows them, each must pass.
The spec's TypeOK plays no part: it is what the spec says of its states, not what it does (a
TypeOK of `cheat = TRUE` would otherwise credit a state Init never leads to).
Each window reports how many pre-states it was checked from (`pre_state_candidates`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from evaluation.details import StateMappingRefusal
from evaluation.inputs.contracts import Contract
from evaluation.phases.conformance import credit
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import Case
from evaluation.phases.conformance.explore import Exploration, SpecError, explore
from evaluation.phases.conformance.runner import Budget, CaseResult
from evaluation.phases.conformance.vocab import FuncSet, Vocab
from evaluation.tla.parsed import ParsedSpec
from evaluation.tla.values import to_tla

# (AuxRule, its description, the state mappings refused, the verdicts the exploration decided)
Choice = tuple[gen.AuxRule, str, list[StateMappingRefusal], dict[int, CaseResult]]

MAX_COMPLETIONS = 729  # rule 3's combinations per window (etcd: 3 nodes x 3 terms = 27)


def choose(
    plan: gen.Plan,
    spec: ParsedSpec,
    cases: list[Case],
    actions: list[str],
    contract: Contract,
    budget: Budget,
) -> Choice:
    """(AuxRule, description, state-mapping refusals, verdicts already decided) for these
    cases. The cases rule 2 applies to are decided by the exploration itself (explore.py); the
    AuxRule says how to build the others (and, for diagnosis, the states the explored ones failed
    from). Sets `plan.refused_state` to the state-mapped variables the spec's behaviour refused."""
    if not cases:
        return gen.AuxRule("pinned"), "no checkable windows", [], {}
    if not gen.state_mapped(plan) and all(gen.built(plan, c) for c in cases):
        return gen.AuxRule("pinned"), "every spec variable is pinned by the window (rule 1)", [], {}
    bounds = (
        int(contract.budget("conformance", "depth")),
        int(contract.budget("conformance", "max_states")),
    )
    refusals = _reads_back(plan, spec, bounds, budget, actions)
    decided_by = sorted(event_decided(plan, contract))
    # The cases no credited mapping builds are decided by the exploration, which also prints the
    # state-mapped variables' values for (b); a mapping (b) refuses leaves more cases to decide.
    wanted = _unbuilt(plan, cases, contract, set())
    if not wanted and not gen.state_mapped(plan):
        rule = explored(plan, cases, contract, Exploration(), {})
        return rule, _description(plan, cases, rule, {}, None, bounds[0]), refusals, {}
    args = (plan, spec, bounds, budget, cases)
    results, seen = _explore(*args, wanted, actions, decided_by, True)
    refused = credit.judge(plan, spec, seen, cases, budget)
    refusals += refused
    plan.refused_state |= {r["variable"] for r in refused}
    more = _unbuilt(plan, cases, contract, set(wanted))
    if more:
        extra, again = _explore(*args, more, actions, decided_by, False)
        results.update(extra)
        seen.failing.update(again.failing)
    guided = _guided(plan, spec, contract, budget, cases, results, actions, decided_by)
    if guided is not None:
        seen.failing.update(guided.exploration.failing)
    decided = {ci: r for ci, r in results.items() if not _built_or_gap(plan, cases[ci], contract)}
    rule = explored(plan, cases, contract, seen, decided)
    description = _description(plan, cases, rule, decided, seen, bounds[0], guided)
    return rule, description, refusals, decided


@dataclass
class Guided:
    """What the guided exploration added: its run, and how many cases it found states for."""

    exploration: Exploration
    decided: int


def _guided(
    plan: gen.Plan,
    spec: ParsedSpec,
    contract: Contract,
    budget: Budget,
    cases: list[Case],
    results: dict[int, CaseResult],
    actions: list[str],
    decided_by: list[str],
) -> Guided | None:
    """The guided exploration, for the explored cases no state of the first exploration shows:
    again from Init, deeper, but expanding only states whose projection shows, variable by
    variable, values the corpus shows (gen.corpus_guide). Every state it finds is reachable
    from Init, so it credits nothing the first could not have; it only reaches, within a
    budget, the states of a long run (a Raft log of twenty entries) that a breadth-first
    search over every request a client may make never gets to. Updates `results` in place
    for the cases it finds states for; None when no case needed it."""
    unseen = [ci for ci, r in results.items() if r.freedom == 0 and r.verdict != "error"]
    guide = gen.corpus_guide(plan, cases) if unseen else {}
    if not guide:
        return None
    bounds = (
        int(contract.budget("conformance", "guided_depth")),
        int(contract.budget("conformance", "guided_max_states")),
    )
    slack = int(contract.budget("conformance", "guided_slack"))
    guided_plan = replace(plan, guide=guide, guide_slack=slack)
    found, seen = _explore(
        guided_plan, spec, bounds, budget, cases, unseen, actions, decided_by, False
    )
    for ci, result in found.items():
        if result.freedom or result.verdict == "error":
            results[ci] = result
    return Guided(seen, sum(1 for r in found.values() if r.freedom))


def _unbuilt(plan: gen.Plan, cases: list[Case], contract: Contract, done: set[int]) -> list[int]:
    return [
        i for i, c in enumerate(cases) if i not in done and not _built_or_gap(plan, c, contract)
    ]


def _explore(
    plan: gen.Plan,
    spec: ParsedSpec,
    bounds: tuple[int, int],
    budget: Budget,
    cases: list[Case],
    wanted: list[int],
    actions: list[str],
    decided_by: list[str],
    values: bool,
) -> tuple[dict[int, CaseResult], Exploration]:
    """(case index -> verdict, the exploration) for the cases `wanted`; `values`: also print the
    state-mapped variables' values (credit.py)."""
    try:
        seen = explore(
            plan,
            spec,
            bounds,
            budget,
            [cases[i] for i in wanted],
            actions,
            decided_by,
            valued=gen.state_mapped(plan) if values else [],
        )
    except SpecError as exc:
        # The spec fails on a state it reaches: nothing is known of its reachable states, so no
        # window is decided from them and no mapping is confirmed either.
        reason = f"the spec's next-state relation fails on a state it reaches from Init: {exc}"
        seen = Exploration({n: CaseResult("error", reason) for n in range(len(wanted))}, cut=True)
    seen.failing = {wanted[n]: states for n, states in seen.failing.items()}
    return {wanted[n]: r for n, r in seen.results.items()}, seen


def _reads_back(
    plan: gen.Plan,
    spec: ParsedSpec,
    bounds: tuple[int, int],
    budget: Budget,
    actions: list[str],
) -> list[StateMappingRefusal]:
    """Rule (a) for every state mapping it applies to, in a run of its own: a mapping that does
    not read back may print on every state, which must not crowd out what the next run reads."""
    refusals: list[StateMappingRefusal] = []
    checked = credit.checked_on_states(plan)
    while checked:
        try:
            seen = explore(plan, spec, bounds, budget, [], actions, checked=checked)
        except credit.MappingError as exc:
            refusals += exc.refusals()
            plan.refused_state |= set(exc.variables)
            checked = [v for v in checked if v not in exc.variables]
            continue
        if seen.cut:
            refusals += [credit.unconfirmed(v) for v in checked if v not in seen.mismatches]
        refusals += [credit.reads_back(v, seen) for v in checked if v in seen.mismatches]
        break
    plan.refused_state |= {r["variable"] for r in refusals}
    return refusals


def _built_or_gap(plan: gen.Plan, case: Case, contract: Contract) -> bool:
    return gen.built(plan, case) or gap_completions(plan, case, contract) is not None


def _description(
    plan: gen.Plan,
    cases: list[Case],
    rule: gen.AuxRule,
    decided: dict[int, CaseResult],
    seen: Exploration | None,
    depth: int,
    guided: Guided | None = None,
) -> str:
    if rule.kind == "pinned":
        return (
            "every spec variable is pinned by the window or built by a credited state mapping "
            "(rule 1)"
        )
    built = sum(1 for c in cases if gen.built(plan, c))
    gaps = sum(1 for g in rule.gaps if g[0])
    parts = [f"{built} case(s) built from the window (rule 1)"]
    if decided and seen is not None:
        none = sum(1 for r in decided.values() if r.freedom == 0)
        cut = "; TLC's output was cut short" if seen.cut else ""
        parts.append(
            f"{len(decided)} from the states reachable from Init in <= {depth} steps "
            f"({seen.reached} found{cut}) that agree with the window, each of which must pass "
            f"(rule 2; {none} agree with none: undecided)"
        )
    if guided is not None:
        parts.append(
            f"{guided.decided} of them from the guided exploration (states reachable from "
            f"Init, expanding only those that show values the traces show; "
            f"{guided.exploration.reached} found)"
        )
    if gaps:
        parts.append(
            f"{gaps} from every value the contract allows for an observed variable the window "
            "leaves out, each of which must pass (rule 3)"
        )
    return "; ".join(parts)


def explored(
    plan: gen.Plan,
    cases: list[Case],
    contract: Contract,
    seen: Exploration,
    decided: dict[int, CaseResult],
) -> gen.AuxRule:
    """The rule for the cases left to the check runs (built ones, rule 3's) and, for the
    diagnosis of the explored cases that failed, the states they failed from."""
    gaps = [gap_completions(plan, c, contract) or ([], []) for c in cases]
    if not decided and not any(g[0] for g in gaps):
        return gen.AuxRule("pinned")
    states: list[str] = []
    per_case: list[list[int]] = [[] for _ in cases]
    for ci in decided:
        for text in seen.failing.get(ci, []):
            if text not in states:
                states.append(text)
            per_case[ci].append(states.index(text) + 1)  # 1-based: they index a TLA+ tuple
        decided[ci].failing = set(per_case[ci])
    return gen.AuxRule(
        "explored",
        list(plan.spec_variables),
        states,
        per_case,
        [ci for ci, r in decided.items() if r.freedom == 0],
        gaps,
    )


def event_decided(plan: gen.Plan, contract: Contract) -> set[str]:
    """Spec variables holding an `event_decides` schema variable as it is (contract.py)."""
    return {
        v
        for v, var in contract.schema.items()
        if var.event_decides
        and v in plan.spec_variables
        and plan.adapter.variables.get(v, v).strip() == v
        and v not in plan.adapter.state
    }


def gap_completions(
    plan: gen.Plan, case: Case, contract: Contract
) -> tuple[list[str], list[str]] | None:
    """Rule 3: a case built from its window but for schema variables the contract says the
    traces observe and this window leaves out (a gap in the record, such as etcd's
    ElectionTimeout windows without logLastTerm) -> (those variables, every combination of the
    values the contract allows them, as TLA+ tuples); None when that is not the case."""
    pinned = set(gen.pinned_vars(plan, case))
    missing = [v for v in plan.spec_variables if v not in pinned]
    if not missing or any(not _gap(plan, case, contract, v) for v in missing):
        return None
    options: list[list[str]] = []
    for var in missing:
        values = _values(plan.vocab[var])
        if values is None:
            return None
        options.append(values)
    total = 1
    for o in options:
        total *= len(o)
    if not total or total > MAX_COMPLETIONS:
        return None
    combos = ["<<" + ", ".join(c) + ">>" for c in itertools.product(*options)]
    return missing, combos


def _gap(plan: gen.Plan, case: Case, contract: Contract, var: str) -> bool:
    schema = contract.schema.get(var)
    return (
        schema is not None
        and schema.observed
        and var not in case.pre
        and var not in plan.views
        and var not in plan.adapter.state
        and plan.adapter.variables.get(var, var).strip() == var
    )


def _values(vocab: Vocab) -> list[str] | None:
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
