"""Every value TLC prints reads back: random nested values (records, functions, sequences,
tuples, sets of any of these, model values, strings, integers, booleans) are printed by real TLC
and parsed back to the value they were built from."""

import random

from evaluation.phases.conformance.diagnose import read_tagged
from evaluation.tla.sandbox import Limits, run_tlc
from evaluation.tla.tlcvalue import FrozenDict, ModelValue, TlaSet, parse_tlc_value

MODEL_VALUES = ("m1", "m2")
SEED = 20261201
COUNT = 120


def _scalar(rng: random.Random):
    kind = rng.randrange(5)
    if kind == 0:
        return rng.randint(-5, 40)
    if kind == 1:
        return rng.choice(["", "a", "b c", 'q"t', "back\\slash", "n1"])
    if kind == 2:
        return rng.choice([True, False])
    if kind == 3:
        return ModelValue(rng.choice(MODEL_VALUES))
    return rng.randint(0, 3)


def _value(rng: random.Random, depth: int):
    if depth == 0 or rng.random() < 0.3:
        return _scalar(rng)
    kind = rng.randrange(5)
    size = rng.randint(0, 3)
    if kind == 0:  # sequence / tuple
        return tuple(_value(rng, depth - 1) for _ in range(size))
    if kind == 1:  # set: elements of one shape, so TLC can compare them
        shape = rng.randrange(3)
        make = [lambda: rng.randint(0, 5), lambda: rng.choice("xyz"), lambda: _uniform(rng)]
        return TlaSet(frozenset(make[shape]() for _ in range(size)))
    if kind == 2:
        return _record(rng, depth - 1)
    if kind == 3:  # function with integer or model-value keys
        keys = rng.sample([7, 8, 9], size) if rng.random() < 0.5 else list(MODEL_VALUES)[:size]
        keys = [ModelValue(k) if isinstance(k, str) else k for k in keys]
        return FrozenDict({k: _value(rng, depth - 1) for k in keys})
    return TlaSet(frozenset(_uniform(rng) for _ in range(size)))


def _uniform(rng: random.Random):
    """A record for a set: same fields and field types in every element (TLC compares them)."""
    return FrozenDict(
        a=rng.randint(0, 2), mtype=rng.choice(["x", "y"]), s=TlaSet(frozenset([rng.randint(0, 1)]))
    )


def _record(rng: random.Random, depth: int):
    fields = rng.sample(["a", "b", "mtype", "term"], rng.randint(1, 3))
    return FrozenDict({f: _value(rng, depth) for f in fields})


def text(value) -> str:
    """TLA+ source for a Python value (the printer under test is TLC, not this)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value) if value >= 0 else f"(0 - {-value})"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, ModelValue):
        return value.name
    if isinstance(value, tuple):
        return "<<" + ", ".join(text(v) for v in value) + ">>"
    if isinstance(value, TlaSet):
        return "{" + ", ".join(text(v) for v in value.items) + "}"
    if not value:
        return "<<>>"
    if all(isinstance(k, str) for k in value):
        return "[" + ", ".join(f"{k} |-> {text(v)}" for k, v in value.items()) + "]"
    return "(" + " @@ ".join(f"{text(k)} :> {text(v)}" for k, v in value.items()) + ")"


def canonical(value):
    """TLC's own normal form: a function on 1..n is a sequence, the empty function `<<>>`."""
    if isinstance(value, dict):
        keys = list(value)
        if all(isinstance(k, int) and not isinstance(k, bool) for k in keys) and sorted(
            keys
        ) == list(range(1, len(keys) + 1)):
            return tuple(canonical(value[k]) for k in sorted(keys))
        return FrozenDict({canonical(k): canonical(v) for k, v in value.items()})
    if isinstance(value, tuple):
        return tuple(canonical(v) for v in value)
    if isinstance(value, TlaSet):
        return TlaSet(frozenset(canonical(v) for v in value.items))
    return value


def test_random_nested_values_printed_by_tlc_parse_back():
    rng = random.Random(SEED)
    values = [_value(rng, 3) for _ in range(COUNT)]
    lines = [
        "---- MODULE RoundTrip ----",
        "EXTENDS TLC, Integers",
        f"CONSTANTS {', '.join(MODEL_VALUES)}",
        "VARIABLE x",
    ]
    lines += [f'ASSUME PrintT(<<"rt", {i}, {text(v)}>>)' for i, v in enumerate(values)]
    lines += ["Init == x = 0", "Next == UNCHANGED x", "===="]
    cfg = "\n".join(["INIT Init", "NEXT Next", *[f"CONSTANT {m} = {m}" for m in MODEL_VALUES]])
    run = run_tlc({"RoundTrip": "\n".join(lines) + "\n"}, "RoundTrip", cfg, [], Limits(60))
    assert run.status == "ok", run.output[-2000:]
    printed = {item[1]: item[2] for item in read_tagged(run.output, "", "rt")}
    assert sorted(printed) == list(range(COUNT))
    for i, value in enumerate(values):
        assert printed[i] == canonical(value), (i, text(value))
        hash(printed[i])  # every value read back is hashable


def test_hand_written_shapes_tlc_prints():
    assert parse_tlc_value("{[a |-> 1], [a |-> 2]}") == TlaSet(
        frozenset({FrozenDict(a=1), FrozenDict(a=2)})
    )
    assert parse_tlc_value("(<<1, 2>> :> {m1} @@ <<2, 1>> :> {})") == {
        (1, 2): TlaSet(frozenset({ModelValue("m1")})),
        (2, 1): TlaSet(frozenset()),
    }
    assert parse_tlc_value('[x \\in {1, 2} |-> <<x, "a">>]') == {1: (1, "a"), 2: (2, "a")}
    assert parse_tlc_value("1..3") == TlaSet(frozenset({1, 2, 3}))
    assert parse_tlc_value('"tab\\there"') == "tab\there"
