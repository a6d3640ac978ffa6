"""P3's negative checks sort the corpus's states on shapes serialised once per state (a speed-up
on large corpora: locksvc's reference spent about 15 s of CPU serialising values for the sort);
the distances, the checks and their order are exactly what the per-comparison serialisation
gave."""

from __future__ import annotations

import itertools
import json
import random

from evaluation.phases.conformance import cases
from evaluation.phases.conformance.cases import Case, _distance, _Shape, _variants, case_key
from evaluation.phases.conformance.vocab import schema_vocab
from evaluation.windows.window import State
from tests.conformance_support import spin, spin_windows


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def old_distance(a: State, b: State) -> int:
    """The distance as it was computed before shapes: every value serialised per comparison."""
    total = 0
    for var in set(a) | set(b):
        x, y = a.get(var), b.get(var)
        if isinstance(x, dict) and isinstance(y, dict):
            total += sum(1 for k in set(x) | set(y) if _canon(x.get(k)) != _canon(y.get(k)))
        else:
            total += _canon(x) != _canon(y)
    return total


def old_negative_cases(real, vocab, viewed=frozenset()):
    """`negative_cases` as it was before shapes (and before it stopped at the cap)."""
    observed_posts: dict[str, set[str]] = {}
    states: dict[str, State] = {}
    for case in real:
        observed_posts.setdefault(_canon([case.action, case.actor, case.pre]), set()).add(
            _canon(case.post)
        )
        states[_canon(case.pre)] = case.pre
        states[_canon(case.post)] = case.post
    out: dict[str, Case] = {}
    total = max(cases.NEGATIVES_TOTAL, cases.NEGATIVES_PER_REAL * len(real))
    cap = max(1, min(cases.NEGATIVES_PER_FAMILY, total // max(1, 2 * len(real))))

    def add(case, kind, pre, post):
        key = case_key(case.action, case.actor, case.input, pre, post)
        if key in out:
            return False
        out[key] = Case(key, case.action, case.actor, case.input, pre, post, kind)
        return True

    for case in real:
        seen = observed_posts[_canon([case.action, case.actor, case.pre])]
        taken = 0
        for post in _variants(case.post, vocab, skip=viewed):
            if taken < cap and _canon(post) not in seen:
                taken += add(case, "neg-post", case.pre, post)
        taken = 0
        ordered = sorted(states.items(), key=lambda kv: (old_distance(kv[1], case.pre), kv[0]))
        for _key, state in ordered:
            if _canon([case.action, case.actor, state]) in observed_posts:
                continue
            for post in _variants(state, vocab, case.actor, viewed):
                if taken >= cap:
                    break
                taken += add(case, "neg-step", state, post)
    return list(out.values())


def random_states(count: int) -> list[State]:
    """States with what a distance must tell apart: function and plain variables, a variable
    or key one state lacks, null values, nested and list values, 1 beside "1" and True."""
    rng = random.Random(7)
    leaves: list[object] = [None, 0, 1, "1", True, "idle", [1, 2], {"a": None}, {"a": [0]}]
    states: list[State] = []
    for _ in range(count):
        state: State = {}
        for var in ("pc", "lock", "queue"):
            if rng.random() < 0.15:
                continue  # the variable is missing
            if rng.random() < 0.6:
                state[var] = {
                    key: rng.choice(leaves) for key in ("0", "1", "2") if rng.random() < 0.8
                }
            else:
                state[var] = rng.choice(leaves)
        states.append(state)
    return states


def test_distance_on_shapes_is_the_distance_on_values():
    states = random_states(60)
    shapes = [_Shape.of(s) for s in states]
    for (a, sa), (b, sb) in itertools.product(zip(states, shapes, strict=True), repeat=2):
        expected = old_distance(a, b)
        assert _distance(sa, sb) == expected, (a, b)
        assert _distance(a, b) == expected


def test_spin_negative_cases_are_the_same_checks_in_the_same_order():
    contract = spin()
    vocab = schema_vocab(contract)
    windows = spin_windows()
    real = cases.build_cases(windows, [True] * len(windows))
    assert len(real) > 1
    new = cases.negative_cases(real, vocab)
    old = old_negative_cases(real, vocab)
    assert [(c.key, c.kind) for c in new] == [(c.key, c.kind) for c in old]
    # A smaller corpus reaches the cap sooner: the early stop must not change what is taken.
    for size in (1, 2, 3):
        part = real[:size]
        assert [c.key for c in cases.negative_cases(part, vocab)] == [
            c.key for c in old_negative_cases(part, vocab)
        ]


def test_locksvc_negative_cases_are_the_same_checks_in_the_same_order():
    """A corpus with function variables of several keys and many distinct states (a sample of
    locksvc's windows, so that the old serialising sort stays quick)."""
    from django.conf import settings

    from evaluation.inputs.contracts import load_contract
    from evaluation.windows import cut_windows

    contract = load_contract("locksvc")
    vocab = schema_vocab(contract)
    windows = cut_windows(contract, settings.SYSMOBENCH_DATA_DIR)[::6]
    valid = [not cases.validate_window(w, contract, vocab) for w in windows]
    real = cases.build_cases(windows, valid)
    assert len(real) > 20
    new = cases.negative_cases(real, vocab)
    assert [(c.key, c.kind) for c in new] == [
        (c.key, c.kind) for c in old_negative_cases(real, vocab)
    ]
