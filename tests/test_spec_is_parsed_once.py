"""One scoring parses the spec once (`tla.parsed.ParsedSpec`), and stores what its types say.

Every tree-sitter parse goes through `evaluation.tla.treesitter.parse`; the first test counts the
parses of the spec's text during one `score_spec`: the pipeline's own, and no other (the phases,
the P4 package and the sandbox's pre-check and TLCSet scans all read that one parse). A failure
names who parsed again.

The second test reads the same scoring's details back against `evaluation/details.py`: mypy
checks the code that builds them, but the stored JSON is what the site reads, and a TypedDict
does not stop an undeclared key at run time.
"""

import traceback
import types
import typing

import pytest

from evaluation import details as shapes
from evaluation import pipeline
from evaluation.tla import treesitter
from tests.conformance_support import spin, spin_spec, spin_windows

pytestmark = pytest.mark.tla


def asker(stack: traceback.StackSummary) -> str:
    """The innermost scorer function that asked for the parse (past the parsing modules)."""
    parsing = (
        "evaluation/tla/treesitter.py",
        "evaluation/tla/splitter.py",
        "evaluation/tla/parsed",
    )
    for frame in reversed(stack[:-1]):
        path = frame.filename.replace("\\", "/")
        if "evaluation/" in path and not any(p in path for p in parsing):
            return f"{path.split('evaluation/', 1)[1]}:{frame.name}"
    return "elsewhere"


@pytest.fixture(scope="module")
def scoring():
    """One scoring of a spin spec with a wrong post-state (so it has failing windows and
    counterexamples to store), with who asked for each parse of its text."""
    spec = spin_spec("wrong_post_state")
    source = spec.encode()
    parses: list[str] = []
    parse = treesitter.parse

    def counting(text: bytes):
        if text == source:
            parses.append(asker(traceback.extract_stack()))
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
    assert parses == ["pipeline.py:score_spec"]


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
