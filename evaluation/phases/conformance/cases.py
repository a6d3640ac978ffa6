"""Windows -> the distinct checks TLC has to make, and negative checks for specificity.

A *case* is what a verdict depends on: (action, actor, input, pre-state, post-state). Windows
with the same case share one check, so a corpus of many repeated transitions costs one TLC
state per distinct case. Window values are validated here against the contract vocabulary;
a window that fails validation gets an error verdict with the reason and never reaches TLC.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.phases.conformance.vocab import FuncSet, RecordSet, Vocab, _same
from evaluation.tla.values import ValueEncodingError, to_tla
from evaluation.windows.window import SIDES, State, Window

NEGATIVES_PER_FAMILY = 6
# Specificity is a diagnostic: its checks may not outgrow the real ones by much.
NEGATIVES_TOTAL = 200
NEGATIVES_PER_REAL = 4


@dataclass
class Case:
    key: str
    action: str
    actor: str
    input: Any  # the window's message (JSON), None when it has none
    pre: State
    post: State
    kind: str = "real"  # "real" | "neg-post" | "neg-pre"
    windows: list[int] = field(default_factory=list)  # indexes of the windows it stands for


def case_key(action: str, actor: str, msg: Any, pre: State, post: State) -> str:
    return json.dumps([action, actor, msg, pre, post], sort_keys=True, separators=(",", ":"))


def validate_window(window: Window, contract: Contract, vocab: dict[str, Vocab]) -> str:
    """'' if the window can be checked, else the reason for its error verdict."""
    action = window.get("action")
    if action not in contract.actions:
        return f"action {action!r} is not a target action of the contract"
    if not isinstance(window.get("actor"), str):
        return "actor is not a string"
    for side in SIDES:
        state = window.get(side)
        if not isinstance(state, dict):
            return f"{side} is not an object"
        for var, value in state.items():
            if var not in contract.schema:
                return f"{side}: {var!r} is not a schema variable"
            reason = vocab[var].check(value, f"{side}.{var}")
            if reason:
                return reason
            try:
                to_tla(value, f"{side}.{var}")
            except ValueEncodingError as exc:
                return str(exc)
    if window.get("input") is not None:
        try:
            to_tla(window["input"], "input")
        except ValueEncodingError as exc:
            return str(exc)
    return ""


def is_full(value: Any, vocab: Vocab) -> bool:
    """Whether a window value gives the whole variable, or only some keys of a function."""
    if not isinstance(value, dict):
        return True
    if isinstance(vocab, FuncSet):
        keys = vocab.keys()
        return keys is not None and set(value) == set(keys)
    if isinstance(vocab, RecordSet):
        return set(value) == {name for name, _ in vocab.fields}
    return False


def build_cases(windows: list[Window], valid: list[bool]) -> list[Case]:
    cases: dict[str, Case] = {}
    for index, (window, ok) in enumerate(zip(windows, valid, strict=True)):
        if not ok:
            continue
        msg = window.get("input")
        key = case_key(
            window["action"], window["actor"], msg, window["pre_state"], window["post_state"]
        )
        case = cases.get(key)
        if case is None:
            case = cases[key] = Case(
                key,
                window["action"],
                window["actor"],
                msg,
                window["pre_state"],
                window["post_state"],
            )
        case.windows.append(index)
    return list(cases.values())


# ----------------------------------------------------------------------------- specificity


def _alternatives(value: Any, vocab: Vocab) -> list[tuple[str | None, object]]:
    """(key, other value) pairs: the whole value swapped, or one key of a function swapped."""
    if isinstance(value, dict) and isinstance(vocab, FuncSet):
        options = vocab.codomain.finite() or []
        return [
            (key, alt) for key in sorted(value) for alt in options if not _same(alt, value[key])
        ]
    options = vocab.finite() or []
    return [(None, alt) for alt in options if not _same(alt, value)]


def _variants(
    state: State,
    vocab: dict[str, Vocab],
    actor: str | None = None,
    skip: Collection[str] = frozenset(),
) -> Iterator[State]:
    """One-change variants; with `actor`, function variables change only at the actor's key
    (what an action of that actor plausibly writes). Variables in `skip` (compared through a
    contract view, which may fold the change away) are left as they are."""
    for var in sorted(set(state) - set(skip)):
        for key, alt in _alternatives(state[var], vocab[var]):
            if actor is not None and key is not None and key != actor:
                continue
            changed = dict(state)
            if key is None:
                changed[var] = alt
            else:
                changed[var] = {**state[var], key: alt}
            yield changed


def _canon(state: object) -> str:
    return json.dumps(state, sort_keys=True)


_ABSENT = _canon(None)


@dataclass(frozen=True)
class _Shape:
    """A state as `_distance` compares it: each variable's canonical JSON and, for a variable
    whose value is an object (a function), each key's. Made once per state, so sorting the
    corpus's states by distance to each real pre-state serialises no value again."""

    whole: dict[str, str]
    keys: dict[str, dict[str, str]]

    @classmethod
    def of(cls, state: State) -> _Shape:
        return cls(
            whole={var: _canon(value) for var, value in state.items()},
            keys={
                var: {k: _canon(v) for k, v in value.items()}
                for var, value in state.items()
                if isinstance(value, dict)
            },
        )


def _distance(a: State | _Shape, b: State | _Shape) -> int:
    """How many variables (or keys of function variables) differ between two states: a
    variable whose value is an object in both counts its differing keys (a key one lacks is
    null), any other counts 1 if its values differ (a variable one lacks is null)."""
    x = a if isinstance(a, _Shape) else _Shape.of(a)
    y = b if isinstance(b, _Shape) else _Shape.of(b)
    total = 0
    for var in x.whole.keys() | y.whole.keys():
        fx, fy = x.keys.get(var), y.keys.get(var)
        if fx is not None and fy is not None:
            total += sum(
                1 for k in fx.keys() | fy.keys() if fx.get(k, _ABSENT) != fy.get(k, _ABSENT)
            )
        else:
            total += x.whole.get(var, _ABSENT) != y.whole.get(var, _ABSENT)
    return total


def negative_cases(
    real: list[Case], vocab: dict[str, Vocab], viewed: Collection[str] = frozenset()
) -> list[Case]:
    """Negative checks derived from the real cases, in a deterministic order.

    neg-post: the same pre-state and actor, the real post-state with one schema variable (or one
      key of a function) changed to another vocabulary value; post-states observed for the same
      (action, actor, pre-state) anywhere in the corpus are excluded. Catches actions that allow
      more outcomes than the system produces.
    neg-step: the same action and actor from a state the corpus shows the system in (some
      window's pre- or post-state) but never shows this action/actor start from, to that state
      with one variable or key changed; states closest to the real pre-state first. Catches
      dropped guards, which the real pre-states (where the guard held) cannot expose.
    Variables in `viewed` (compared through a contract view) are never the one changed.
    At most `cap` new checks per real case and family (NEGATIVES_PER_FAMILY, lowered so the total
    stays near max(NEGATIVES_TOTAL, NEGATIVES_PER_REAL x real cases)); duplicates are checked once.
    """
    observed_posts: dict[str, set[str]] = {}
    states: dict[str, State] = {}
    for case in real:
        observed_posts.setdefault(_canon([case.action, case.actor, case.pre]), set()).add(
            _canon(case.post)
        )
        states[_canon(case.pre)] = case.pre
        states[_canon(case.post)] = case.post
    out: dict[str, Case] = {}
    total = max(NEGATIVES_TOTAL, NEGATIVES_PER_REAL * len(real))
    cap = max(1, min(NEGATIVES_PER_FAMILY, total // max(1, 2 * len(real))))

    def add(case: Case, kind: str, pre: State, post: State) -> bool:
        key = case_key(case.action, case.actor, case.input, pre, post)
        if key in out:
            return False
        out[key] = Case(key, case.action, case.actor, case.input, pre, post, kind)
        return True

    shapes = {key: _Shape.of(state) for key, state in states.items()}
    for case in real:
        seen = observed_posts[_canon([case.action, case.actor, case.pre])]
        taken = 0
        for post in _variants(case.post, vocab, skip=viewed):
            if taken < cap and _canon(post) not in seen:
                taken += add(case, "neg-post", case.pre, post)
        taken = 0
        real_pre = _Shape.of(case.pre)
        ordered = sorted(states.items(), key=lambda kv: (_distance(shapes[kv[0]], real_pre), kv[0]))
        for _key, state in ordered:
            if taken >= cap:
                break  # every later state would add nothing
            if _canon([case.action, case.actor, state]) in observed_posts:
                continue
            for post in _variants(state, vocab, case.actor, viewed):
                if taken >= cap:
                    break
                taken += add(case, "neg-step", state, post)
    return list(out.values())
