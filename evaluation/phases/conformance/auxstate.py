"""The auxiliary-state rule: which values spec variables take that a window does not pin.

A window fixes the schema variables it observes. The spec may have more state (variables outside
the schema, schema variables the traces never observe such as spin's `callType`, keys a partial
window leaves out, or variables reached only through a non-identity adapter). For a window's
pre-state those take, deterministically:

1. `pinned`: nothing is left free (every spec variable is an identity-mapped schema variable the
   window gives in full) -> exactly one pre-state.
2. `typeok`: the spec defines `TypeOK` -> every state that satisfies TypeOK and agrees with the
   window's pre-state (TLC enumerates TypeOK's `x \\in S` conjuncts). When TLC cannot compute
   those initial states (TypeOK uses an infinite set such as `Seq(S)` or `Nat` for a free
   variable, or mixes strings and integers in one set), rule 3 applies instead.
3. `explored`: no TypeOK -> the states reachable from the spec's Init within `depth` steps
   (contract budget `conformance.depth`, default 4; at most `conformance.max_states`, default
   2000, in TLC's breadth-first order) under the pinned constants, computed once per spec. A
   window takes the explored states whose schema projection agrees with its pre-state; when
   none does, it takes the free variables' values from every explored state (and the window's
   own values for what it pins). A function variable the window gives only partly (some keys)
   takes the given keys from the window and the other keys from the candidate state.
Each window reports how many candidate pre-states the rule gave it (`pre_state_candidates`).
"""

from __future__ import annotations

from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import Case, is_full
from evaluation.phases.conformance.diagnose import read_tagged, same
from evaluation.phases.conformance.runner import Budget, SetupError, run_module
from evaluation.tla.parsed import ParsedSpec
from evaluation.tla.spectext import defines
from evaluation.tla.tlcvalue import ModelValue, TlaSet, TlcValue, to_json_like
from evaluation.tla.values import to_tla
from evaluation.windows.window import State

# One explored state: the spec variables' values (as TLC printed them) and its projection on
# the schema variables (JSON-like, as windows give them).
Explored = tuple[tuple[TlcValue, ...], State]


def choose(
    plan: gen.Plan, spec: ParsedSpec, cases: list[Case], contract: Contract, budget: Budget
) -> tuple[gen.AuxRule, str]:
    """(AuxRule, description) for this spec and these cases."""
    if all(set(gen.pinned_vars(plan, c)) >= set(plan.spec_variables) for c in cases):
        return gen.AuxRule("pinned"), "every spec variable is pinned by the window (rule 1)"
    if defines(spec.text, "TypeOK"):
        return gen.AuxRule("typeok"), "free variables range over the spec's TypeOK (rule 2)"
    return explored(plan, spec, cases, contract, budget, "the spec defines no TypeOK")


def explored(
    plan: gen.Plan,
    spec: ParsedSpec,
    cases: list[Case],
    contract: Contract,
    budget: Budget,
    why: str,
) -> tuple[gen.AuxRule, str]:
    """Rule 3 for these cases; `why` says why rules 1 and 2 did not apply."""
    depth = int(contract.budget("conformance", "depth"))
    cap = int(contract.budget("conformance", "max_states"))
    states = explore(plan, spec, depth, cap, budget)
    per_case: list[list[int]] = []
    fallback, unmatched = 0, []
    for ci, case in enumerate(cases):
        # 1-based: they index a TLA+ tuple.
        matching = [i for i, (_, p) in enumerate(states, 1) if _agrees(p, case.pre, plan)]
        if not matching:
            fallback += 1
            unmatched.append(ci)
            matching = list(range(1, len(states) + 1))
        per_case.append(matching)
    rule = gen.AuxRule(
        "explored",
        list(plan.spec_variables),
        [_tuple_text(s) for s, _ in states],
        per_case,
        unmatched,
    )
    text = (
        f"{why}: free variables take values of the {len(states)} states reachable from Init in "
        f"<= {depth} steps (rule 3); {fallback} case(s) matched no explored state and use all"
    )
    return rule, text


def explore(
    plan: gen.Plan, spec: ParsedSpec, depth: int, cap: int, budget: Budget
) -> list[Explored]:
    """Distinct (spec-variable values, schema projection) of the states within `depth` steps."""
    m = gen.n(plan, "n")
    steps = ", ".join(str(k) for k in range(2, depth + 2))
    names = ", ".join(plan.spec_variables)
    module = "\n".join(
        [
            f"---- MODULE {gen.module_name(plan)} ----",
            f"EXTENDS {plan.spec_module}, TLC",
            f"VARIABLE {m}",
            *gen.prelude(plan),
            *gen._projection(plan),
            f"{gen.n(plan, 'S')} == <<{steps}>>",
            f"{gen.n(plan, 'Init')} == {plan.init} /\\ {m} = 1",
            f'{gen.n(plan, "Next")} == /\\ PrintT(<<"{plan.nonce}r", <<{names}>>, '
            f"{gen.n(plan, 'Proj')}>>)",
            f"  /\\ {m} \\in DOMAIN {gen.n(plan, 'S')} /\\ {m}' = {gen.n(plan, 'S')}[{m}] "
            f"/\\ {plan.next}",
            "====",
        ]
    )
    run = run_module(plan, spec, module + "\n", budget)
    if run.status not in ("ok",):
        raise SetupError(f"exploring the spec for auxiliary state failed: {run.note}", run.messages)
    out: list[Explored] = []
    for item in read_tagged(run.output, plan.nonce, "r"):
        values, proj = item[1], to_json_like(item[2])
        state = dict(zip(plan.observed, proj, strict=True))
        if not any(values == v for v, _ in out):
            out.append((values, state))
        if len(out) >= cap:
            break
    return out


def _agrees(projection: State, pre: State, plan: gen.Plan) -> bool:
    """Whether an explored state fits a pre-state, ignoring the partly given identity-mapped
    function variables (their given keys replace the candidate's, see generator._merged)."""
    for var, want in pre.items():
        if var in plan.views:
            continue  # compared through its view by the check itself
        got = projection.get(var)
        identity = plan.adapter.variables.get(var, var).strip() == var
        if identity and var in plan.spec_variables and not is_full(want, plan.vocab[var]):
            continue
        if is_full(want, plan.vocab[var]):
            if not same(got, want):
                return False
        elif not isinstance(got, dict) or any(
            k not in got or not same(got[k], v) for k, v in want.items()
        ):
            return False
    return True


def _tuple_text(values: tuple[TlcValue, ...]) -> str:
    return "<<" + ", ".join(tla_text(v) for v in values) + ">>"


def tla_text(value: Any) -> str:
    """TLA+ text for a value read back from TLC output."""
    if isinstance(value, ModelValue):
        return value.name
    if isinstance(value, TlaSet):
        return "{" + ", ".join(sorted(tla_text(v) for v in value.items)) + "}"
    if isinstance(value, tuple):
        return "<<" + ", ".join(tla_text(v) for v in value) + ">>"
    if isinstance(value, dict):
        if not value:
            return "<<>>"
        pairs = [f"{tla_text(k)} :> {tla_text(v)}" for k, v in value.items()]
        return "(" + " @@ ".join(pairs) + ")"
    return to_tla(value)
