"""One scoring parses the spec once (`tla.parsed.ParsedSpec`), and stores what its types say.

Every tree-sitter parse goes through `evaluation.tla.treesitter.parse`; the first test counts the
parses of the spec's text during one `score_spec` and who asked for them. Two modules still parse
the text themselves until they are split into packages (issue 19): the sandbox (its pre-check
and TLCSet scan of every module it is given) and P4 (`phases/invariants.py`). Their parses are
counted apart, so the rest of the scorer is held to exactly one.

The second test reads the same scoring's details back against `evaluation/details.py`: mypy
checks the phases that build them, but P4 is not type-checked until its split, and the stored
JSON is what the site reads.
"""

import traceback
import types
import typing
from collections import Counter

import pytest

from evaluation import details as shapes
from evaluation import pipeline
from evaluation.tla import treesitter
from tests.conformance_support import spin, spin_spec, spin_windows

pytestmark = pytest.mark.tla

# Paths of the modules that still parse the text they are given (a module or, after the split,
# a package of that name).
NOT_YET_WIRED = ("evaluation/tla/sandbox", "evaluation/phases/invariants")


def asker(stack: traceback.StackSummary) -> str:
    """Which of the modules above calls the parser, or "scorer" for any other."""
    for frame in stack:
        path = frame.filename.replace("\\", "/")
        for module in NOT_YET_WIRED:
            if module in path:
                return module
    return "scorer"


@pytest.fixture(scope="module")
def scoring():
    """One scoring of a spin spec with a wrong post-state (so it has failing windows and
    counterexamples to store), with the parses of its text by who asked for them."""
    spec = spin_spec("wrong_post_state")
    source = spec.encode()
    parses: Counter[str] = Counter()
    parse = treesitter.parse

    def counting(text: bytes):
        if text == source:
            parses[asker(traceback.extract_stack())] += 1
        return parse(text)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(treesitter, "parse", counting)
        report = pipeline.score_spec(spec, spin(), spin_windows()[:40])
    assert [o.status for o in report.outcomes.values()] == ["ran"] * 4
    assert report.outcomes["conformance"].details["failing_windows"]
    assert any(i.counterexample for i in report.outcomes["invariant"].invariants)
    return report, parses


def test_one_scoring_parses_the_spec_once(scoring):
    _report, parses = scoring
    assert parses["scorer"] == 1, parses
    # What the two modules above still parse (each phase's pre-check, every TLC run's TLCSet
    # scan, P4's own listings): they exist and are all that is left.
    assert set(parses) == {"scorer", *NOT_YET_WIRED}, parses


def undeclared(value: object, shape: object, where: str) -> list[str]:
    """Keys of `value` (recursively) that the type `shape` does not declare."""
    if typing.is_typeddict(shape):
        hints = typing.get_type_hints(shape)
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        found = [f"{where}.{key}" for key in value if key not in hints]
        for key, item in value.items():
            if key in hints:
                found += undeclared(item, _bare(hints[key]), f"{where}.{key}")
        return found
    origin, args = typing.get_origin(shape), typing.get_args(shape)
    if origin in (typing.Union, types.UnionType):
        fitting = [undeclared(value, _bare(arg), where) for arg in args if _fits(value, arg)]
        return min(fitting, key=len) if fitting else [f"{where}: fits none of {shape}"]
    if origin is list and isinstance(value, list):
        return [k for i, item in enumerate(value) for k in undeclared(item, args[0], where)]
    if origin is dict and isinstance(value, dict):
        return [k for key, item in value.items() for k in undeclared(item, args[1], where)]
    return []


def _bare(shape: object) -> object:
    """`shape` without NotRequired/Required."""
    while typing.get_origin(shape) in (typing.NotRequired, typing.Required):
        shape = typing.get_args(shape)[0]
    return shape


def _fits(value: object, shape: object) -> bool:
    shape = _bare(shape)
    if typing.is_typeddict(shape):
        return isinstance(value, dict)
    if shape is type(None):
        return value is None
    if typing.get_origin(shape) is typing.Literal:
        return value in typing.get_args(shape)
    origin = typing.get_origin(shape) or shape
    return origin is typing.Any or isinstance(value, origin)


PHASE_SHAPES = {
    "syntax": (shapes.SyntaxDetails, shapes.SyntaxActionDetail),
    "runtime": (shapes.RuntimeDetails, shapes.RuntimeActionDetail),
    "conformance": (shapes.ConformanceDetails, shapes.PerActionRow),
    "invariant": (shapes.InvariantDetails, None),
}


def test_the_stored_details_are_the_declared_shapes(scoring):
    report, _parses = scoring
    found = []
    for phase, outcome in report.outcomes.items():
        details, action = PHASE_SHAPES[phase]
        found += undeclared(outcome.details, details, f"{phase}.details")
        for row in outcome.actions if action else ():
            found += undeclared(row.detail, action, f"{phase}.actions.detail")
        for window in outcome.windows:
            found += undeclared(window.detail, shapes.WindowDetail, f"{phase}.windows.detail")
        for invariant in outcome.invariants:
            for state in invariant.counterexample:
                found += undeclared(state, shapes.CounterexampleState, "counterexample")
    assert found == []
    # The checker itself sees an undeclared key.
    assert undeclared({"module": "M", "extra": 1}, shapes.SyntaxDetails, "d") == ["d.extra"]
