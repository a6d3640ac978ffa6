"""Why a window failed: the successors the spec does allow from its pre-state, and a diff.

One extra TLC run over the failing cases only: the same wrapper without the post-state check,
printing `<<"<nonce>s", k, <<projection of the successor>>>>` for every successor. The projection
is read back with the TLC value reader (model values stay model values), the distinct successors
are ranked by how many variables/keys differ from the window's post-state, and the closest few
are kept with their differences.
"""

from __future__ import annotations

import re
from typing import Any

from evaluation.details import Difference, Successor
from evaluation.phases.conformance import generator as gen
from evaluation.phases.conformance.cases import Case
from evaluation.phases.conformance.runner import Checker
from evaluation.tla.tlcvalue import TlcValueError, _Parser, json_value, to_json_like
from evaluation.windows.window import State

MAX_SUCCESSORS = 3


def same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def differences(actual: State, expected: State) -> list[Difference]:
    """Variables (or keys of function variables) where `actual` disagrees with `expected`."""
    out: list[Difference] = []
    for var in sorted(expected):
        want, got = expected[var], actual.get(var)
        if isinstance(want, dict) and isinstance(got, dict):
            for key in sorted(want):
                if key not in got or not same(got[key], want[key]):
                    out.append(
                        {
                            "variable": var,
                            "key": key,
                            "trace": want[key],
                            "spec": json_value(got.get(key)),
                        }
                    )
        elif not same(got, want):
            out.append({"variable": var, "trace": want, "spec": json_value(got)})
    return out


def read_tagged(output: str, nonce: str, tag: str) -> list[tuple[Any, ...]]:
    """Every `<<"<nonce><tag>", ...>>` tuple printed, parsed (values may span lines). The
    wrapper printed them, so the caller knows the shape of their elements."""
    found: list[tuple[Any, ...]] = []
    for m in re.finditer(rf'<<\s*"{nonce}{tag}"', output):
        parser = _Parser(output)
        parser.pos = m.start()
        try:
            value = parser.value()
        except TlcValueError:
            continue
        if isinstance(value, tuple):  # always: the text read starts with `<<`
            found.append(value)
    return found


def successors(
    checker: Checker,
    cases: list[Case],
    aux: gen.AuxRule,
    viewed_posts: dict[int, State] | None = None,
    pre_differences: dict[int, list[Difference]] | None = None,
) -> dict[int, list[State]] | None:
    """Projected successors per case index (None when the run could not be read), seen
    through the contract's views; `viewed_posts` gets each case's post-state values of the
    viewed variables through the same views, to diff against; `pre_differences` where the
    mappings of a pre-state built entirely from the window disagree with it."""
    if not cases:
        return None
    plan = checker.plan
    run = checker.run(gen.build_module(plan, cases, checker.actions, aux, diagnose=True))
    if run.status != "ok":
        return None
    out: dict[int, list[State]] = {k: [] for k in range(len(cases))}
    for item in read_tagged(run.output, plan.nonce, "s"):
        k, values = item[1], to_json_like(item[2])
        state = dict(zip(plan.observed, values, strict=True))
        if 1 <= k <= len(cases) and not any(same(state, s) for s in out[k - 1]):
            out[k - 1].append(state)
            if viewed_posts is not None:
                viewed_posts[k - 1] = _named(plan, cases[k - 1].post, item[3])
    if pre_differences is not None:
        for item in read_tagged(run.output, plan.nonce, "p"):
            k, case = item[1], cases[item[1] - 1]
            state = dict(zip(plan.observed, to_json_like(item[2]), strict=True))
            want = {**case.pre, **_named(plan, case.pre, item[3])}
            shown = {v: json_value(state.get(v)) for v in want}
            pre_differences[k - 1] = differences(shown, want)
    return out


def _named(plan: gen.Plan, state: State, values: Any) -> State:
    names = [v for v in sorted(plan.views) if v in state]
    return dict(zip(names, to_json_like(values), strict=True))


def closest(found: list[State], post: State) -> list[Successor]:
    """The distinct successors (seen on the window's variables) nearest to its post-state."""
    seen: list[State] = []
    for state in found:
        shown = {v: json_value(state.get(v)) for v in post}
        if not any(same(shown, s) for s in seen):
            seen.append(shown)
    ranked = sorted(seen, key=lambda s: (len(differences(s, post)), repr(s)))
    return [{"successor": s, "differences": differences(s, post)} for s in ranked[:MAX_SUCCESSORS]]
