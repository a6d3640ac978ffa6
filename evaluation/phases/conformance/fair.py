"""Fair negative windows: transitions the trace corpus shows the real system never makes.

A negative window is a real window with its post-state changed. The diagnostic families in
`cases.py` (`neg-post`, `neg-step`) change any variable to any value, so the system itself may
well make some of them (a state never observed is not a state never reached); they are shown,
never scored. The families here are built only from what every window of the action agrees on,
so that an honest spec has no reason to accept one, and P3 counts them (`specificity.py`).

Per action the corpus is read as *slot classes*: a slot is a schema variable given whole
(class `scalar`) or one key of a function variable, of class `own` when the key is the window's
actor and `other` for any other key (another thread, node or the network of another node).
- `neg-frame`: a slot class that the action's windows show (in at least MIN_SUPPORT distinct
  cases) and never change, anywhere in the corpus, is never changed by the action. A negative
  is a real window whose post-state has one such slot changed to another value.
- `neg-determined`: a slot class the action does change, where across all its windows the post
  value is a function of the same slot's pre value (same pre value, same post value), the
  window's pre value being seen in at least MIN_SUPPORT distinct cases. A negative changes the
  post value of one such slot, or of two at once (each to a value the function rules out: an
  action that changes two things the system always changes together cannot be caught by
  changing only one of them when the spec only keeps both consistent).
Other values come from the contract vocabulary when it is finite, otherwise from the values the
corpus shows for the same slot (nearest numbers first). Never a negative equal to a post-state
observed for the same (action, actor, input, pre); never on a variable with a contract `view`
(the view may fold the change away); deterministic order; at most FAIR_PER_ACTION per action,
taken round-robin over the action's cases so that every case contributes before any does twice.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from evaluation.details import FairSlot
from evaluation.phases.conformance.cases import Case, case_key
from evaluation.phases.conformance.vocab import FuncSet, Vocab
from evaluation.windows.window import State

FRAME, DETERMINED = "neg-frame", "neg-determined"
# `neg-safety` (`safety.py`) counts like the two families here.
FAIR_KINDS = (FRAME, DETERMINED, "neg-safety")
FAIR_PER_ACTION = 48
MIN_SUPPORT = 2
ALTERNATIVES_PER_SLOT = 3
SCALAR, OWN, OTHER = "scalar", "own", "other"


# A slot class: (variable, SCALAR | OWN | OTHER).
SlotClass = tuple[str, str]


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True)


@dataclass
class FairCase(Case):
    """A fair negative, with what was changed and why the system never does it (the reason
    an accepted one is shown with)."""

    changed: list[FairSlot] = field(default_factory=list)
    why: str = ""


@dataclass(frozen=True)
class Slot:
    var: str
    key: str | None = None  # a key of a function variable; None: the whole variable

    def klass(self, actor: str) -> str:
        if self.key is None:
            return SCALAR
        return OWN if self.key == actor else OTHER

    def get(self, state: State) -> Any:
        value = state[self.var]
        return value if self.key is None else value[self.key]

    def put(self, state: State, value: Any) -> State:
        changed = dict(state)
        if self.key is None:
            changed[self.var] = value
        else:
            changed[self.var] = {**state[self.var], self.key: value}
        return changed

    def text(self) -> str:
        return self.var if self.key is None else f"{self.var}[{self.key}]"


def slots(case: Case, vocab: dict[str, Vocab], viewed: Collection[str]) -> list[Slot]:
    """The slots a window gives on both sides, in a fixed order."""
    out: list[Slot] = []
    for var in sorted(set(case.pre) & set(case.post) - set(viewed)):
        pre, post = case.pre[var], case.post[var]
        if isinstance(pre, dict) and isinstance(post, dict) and isinstance(vocab[var], FuncSet):
            out.extend(Slot(var, key) for key in sorted(set(pre) & set(post)))
        else:
            out.append(Slot(var))
    return out


@dataclass
class Profile:
    """What the windows of one action show, per slot class `(var, class)`."""

    cases: dict[SlotClass, int] = field(default_factory=dict)  # distinct cases showing it
    changed: set[SlotClass] = field(default_factory=set)
    # pre value -> post values seen, and pre value -> distinct cases showing it
    posts: dict[SlotClass, dict[str, set[str]]] = field(default_factory=dict)
    support: dict[SlotClass, dict[str, int]] = field(default_factory=dict)

    def frame(self, klass: SlotClass) -> bool:
        return klass not in self.changed and self.cases.get(klass, 0) >= MIN_SUPPORT

    def determined(self, klass: SlotClass, pre_value: Any) -> str | None:
        """The post value the corpus says follows `pre_value` (canonical JSON), or None."""
        if klass not in self.changed:
            return None
        relation = self.posts.get(klass, {})
        if any(len(posts) != 1 for posts in relation.values()):
            return None  # not a function of the pre value somewhere in the corpus
        pre = _canon(pre_value)
        if self.support[klass].get(pre, 0) < MIN_SUPPORT:
            return None
        return next(iter(relation[pre]))


def profiles(
    real: list[Case], vocab: dict[str, Vocab], viewed: Collection[str]
) -> dict[str, Profile]:
    out: dict[str, Profile] = {}
    for case in real:
        profile = out.setdefault(case.action, Profile())
        classes: set[SlotClass] = set()
        pre_values: set[tuple[SlotClass, str]] = set()
        for slot in slots(case, vocab, viewed):
            klass = (slot.var, slot.klass(case.actor))
            pre, post = _canon(slot.get(case.pre)), _canon(slot.get(case.post))
            if pre != post:
                profile.changed.add(klass)
            profile.posts.setdefault(klass, {}).setdefault(pre, set()).add(post)
            classes.add(klass)
            pre_values.add((klass, pre))
        # Support counts distinct cases: one case with many `other` keys is one observation.
        for klass in classes:
            profile.cases[klass] = profile.cases.get(klass, 0) + 1
        for klass, pre in pre_values:
            support = profile.support.setdefault(klass, {})
            support[pre] = support.get(pre, 0) + 1
    return out


# Per slot (variable, key or None): the values the corpus shows there.
Observed = dict[tuple[str, Any], list[Any]]


def observed_values(real: list[Case], vocab: dict[str, Vocab]) -> Observed:
    """Per slot `(var, key)`, the values it takes anywhere in the corpus (canonical order).
    Per key, not per variable: a network's inbox of one node may hold other kinds of value
    than another's, and TLC cannot compare values of different kinds (an evaluation error)."""
    seen: dict[tuple[str, Any], dict[str, Any]] = {}
    for case in real:
        for state in (case.pre, case.post):
            for var, value in state.items():
                keyed = isinstance(value, dict) and isinstance(vocab.get(var), FuncSet)
                items = list(value.items()) if keyed else [(None, value)]
                for key, item in items:
                    seen.setdefault((var, key), {})[_canon(item)] = item
    return {slot: [values[k] for k in sorted(values)] for slot, values in seen.items()}


def _alternatives(
    slot: Slot,
    current: Any,
    vocab: dict[str, Vocab],
    observed: Observed,
    before: Any = None,
) -> list[Any]:
    """Up to ALTERNATIVES_PER_SLOT other values for a slot whose post value is `current`;
    `before` (the pre value, when the system changes the slot) first: an action that leaves
    the slot as it was is the plainest way of not doing what the system does."""
    kind = vocab[slot.var]
    finite = (
        kind.codomain if slot.key is not None and isinstance(kind, FuncSet) else kind
    ).finite()
    options: list[Any] = (
        list(finite) if finite is not None else observed.get((slot.var, slot.key), [])
    )
    picked = [v for v in options if _canon(v) != _canon(current)]
    if _is_int(current):
        # Numbers nearest the real one first: the likeliest slips (off by one) are checked.
        picked.sort(key=lambda v: (not _is_int(v), abs(v - current) if _is_int(v) else 0))
    if before is not None and _canon(before) != _canon(current):
        picked = [before, *(v for v in picked if _canon(v) != _canon(before))]
    return picked[:ALTERNATIVES_PER_SLOT]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# A negative before it is a case: (family, the slots it changed, its post-state).
Candidate = tuple[str, list[Slot], State]


def _candidates(
    case: Case,
    profile: Profile,
    vocab: dict[str, Vocab],
    viewed: Collection[str],
    observed: Observed,
) -> list[list[Candidate]]:
    """For one real case: its frame negatives, single-slot and two-slot determined negatives,
    each as a list of (family, changed slots, post-state)."""
    frame: list[Candidate] = []
    determined: list[tuple[Slot, list[Any]]] = []
    for slot in slots(case, vocab, viewed):
        klass = (slot.var, slot.klass(case.actor))
        current = _canon(slot.get(case.post))
        if profile.frame(klass):
            for alt in _alternatives(slot, slot.get(case.post), vocab, observed):
                frame.append((FRAME, [slot], slot.put(case.post, alt)))
            continue
        expected = profile.determined(klass, slot.get(case.pre))
        if expected is not None and expected == current:
            alts = _alternatives(slot, slot.get(case.post), vocab, observed, slot.get(case.pre))
            determined.append((slot, alts))
    singles: list[Candidate] = [
        (DETERMINED, [slot], slot.put(case.post, alt)) for slot, alts in determined for alt in alts
    ]
    pairs: list[Candidate] = [
        (DETERMINED, [a, b], b.put(a.put(case.post, alt_a), alt_b))
        for (a, alts_a), (b, alts_b) in itertools.combinations(determined, 2)
        for alt_a, alt_b in itertools.product(alts_a, alts_b)
    ]
    return [frame, singles, pairs]


def _why(family: str, action: str, case: Case, changed: list[Slot]) -> str:
    names = ", ".join(f"{s.var} ({s.klass(case.actor)})" for s in changed)
    if family == FRAME:
        return f"no {action} window of the traces changes {names}"
    return f"in every {action} window of the traces {names} follows from its pre-state value"


def _round_robin(queues: list[list[tuple[Case, Candidate]]]) -> list[tuple[Case, Candidate]]:
    return [item for items in itertools.zip_longest(*queues) for item in items if item is not None]


def fair_negative_cases(
    real: list[Case], vocab: dict[str, Vocab], viewed: Collection[str] = frozenset()
) -> list[Case]:
    """The fair negative cases of every action, in a deterministic order: per action the
    frame, single-slot and two-slot determined negatives interleaved (so that no family uses
    up the cap), each family taken round-robin over the action's cases."""
    observed_posts: dict[str, set[str]] = {}
    for case in real:
        at = _canon([case.action, case.actor, case.input, case.pre])
        observed_posts.setdefault(at, set()).add(_canon(case.post))
    by_action = profiles(real, vocab, viewed)
    observed = observed_values(real, vocab)
    out: dict[str, Case] = {}
    for action in sorted(by_action):
        mine = [c for c in real if c.action == action]
        per_case = [_candidates(c, by_action[action], vocab, viewed, observed) for c in mine]
        families = [
            _round_robin(
                [
                    [(case, item) for item in groups[i]]
                    for case, groups in zip(mine, per_case, strict=True)
                ]
            )
            for i in range(3)
        ]
        taken = 0
        for case, (family, changed, post) in _round_robin(families):
            if taken >= FAIR_PER_ACTION:
                break
            at = _canon([case.action, case.actor, case.input, case.pre])
            key = case_key(case.action, case.actor, case.input, case.pre, post)
            if _canon(post) in observed_posts[at] or key in out:
                continue
            out[key] = FairCase(
                key,
                case.action,
                case.actor,
                case.input,
                case.pre,
                post,
                family,
                changed=[
                    {"slot": s.text(), "negative": s.get(post), "trace": s.get(case.post)}
                    for s in changed
                ],
                why=_why(family, action, case, changed),
            )
            taken += 1
    return list(out.values())
