"""Whether a pinned bound, rather than the spec's behaviour, decided a failing window.

A contract pins small model-checking bounds (etcd's `MaxLogLen`) so that P2 and P4 stay
finite, and raises them for P3 where the trace corpus needs more (`conformance_constants`).
A window can still go beyond a bound (a corpus that grew, a bound not raised), and a spec that
guards its steps with the bound (`Len(log[n]) < MaxLogLen`) then fails it for a reason that is
ours. So the failing windows are checked once more with every integer bound of the contract
that the spec declares raised above every integer in the windows; a window that passes then
says which bounds decided it. The verdict itself stays the contract's (the bound is part of the
contract), only its reason changes; the extra run is skipped when nothing failed or no bound
is declared.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from evaluation.inputs.contracts import Contract
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import Case
from evaluation.phases.conformance.runner import Budget, check_cases
from evaluation.tla.parsed import ParsedSpec

_INTEGER = re.compile(r"^\s*-?\d+\s*$")


def integer_bounds(contract: Contract, declared: set[str]) -> dict[str, int]:
    """The contract's own bounds (its `conformance_constants`, at their P3 values) that are
    integers and that the spec declares. Other pinned constants are the system's (ringbuffer's
    `Capacity`): raising them would change the system, not lift a bound."""
    return {
        name: int(value)
        for name, value in contract.constants.items()
        if name in contract.conformance_constants and name in declared and _INTEGER.match(value)
    }


def bound_notes(
    plan: gen.Plan,
    spec: ParsedSpec,
    cases: list[Case],
    failing: list[int],
    actions: list[str],
    aux: gen.AuxRule,
    budget: Budget,
    bounds: dict[str, int],
) -> dict[int, str]:
    """Failing case index -> why a bound decided it, for those that pass with bounds raised:
    all raised at once first, then (with several bounds) each alone on those that passed, so
    the reason names the one bound that decided where one suffices."""
    if not failing or not bounds:
        return {}
    top = max((_largest(cases[i]) for i in failing), default=0)
    raised = {name: top + 2 for name, value in bounds.items() if value <= top + 1}
    if not raised:
        return {}
    passed = _passing(plan, spec, cases, failing, actions, aux, budget, raised)
    notes = dict.fromkeys(passed, _note(bounds, raised))
    if len(raised) > 1:
        for name, value in sorted(raised.items()):
            alone = {name: value}
            rest = [i for i in passed if notes[i] == _note(bounds, raised)]
            for i in _passing(plan, spec, cases, rest, actions, aux, budget, alone):
                notes[i] = _note(bounds, alone)
    return notes


def _note(bounds: dict[str, int], raised: dict[str, int]) -> str:
    names = sorted(raised)
    return (
        f"decided by the contract's bound ({', '.join(f'{k} = {bounds[k]}' for k in names)}): "
        f"the window passes when {', '.join(f'{k} is {raised[k]}' for k in names)}"
    )


def _passing(
    plan: gen.Plan,
    spec: ParsedSpec,
    cases: list[Case],
    chosen: list[int],
    actions: list[str],
    aux: gen.AuxRule,
    budget: Budget,
    raised: dict[str, int],
) -> list[int]:
    """The cases among `chosen` that pass with the constants in `raised` given those values."""
    if not chosen:
        return []
    wider = replace(plan, constants={**plan.constants, **{k: str(v) for k, v in raised.items()}})
    # An explored case runs again from the reachable states it failed from (auxstate.py).
    sub = aux.subset(chosen)
    results = check_cases(wider, spec, [cases[i] for i in chosen], actions, sub, budget)
    return [i for i, r in zip(chosen, results, strict=True) if r.verdict == "pass"]


def _largest(case: Case) -> int:
    return max([0, *_integers(case.pre), *_integers(case.post), *_integers(case.input)])


def _integers(value: object) -> Iterator[int]:
    """Every integer in a window value, and every sequence length (a bound may cap either)."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _integers(item)
    elif isinstance(value, list):
        yield len(value)
        for item in value:
            yield from _integers(item)
