"""One scoring parses the spec once (`tla.parsed.ParsedSpec`): every phase reads that parse.

Every tree-sitter parse goes through `evaluation.tla.treesitter.parse`; the test counts the
parses of the spec's text during one `score_spec` and who asked for them. Two modules still parse
the text themselves until they are split into packages (issue 19): the sandbox (its pre-check
and TLCSet scan of every module it is given) and P4 (`phases/invariants.py`). Their parses are
counted apart, so the rest of the scorer is held to exactly one.
"""

import traceback
from collections import Counter

import pytest

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


def test_one_scoring_parses_the_spec_once(monkeypatch):
    spec = spin_spec()
    source = spec.encode()
    parses: Counter[str] = Counter()
    parse = treesitter.parse

    def counting(text: bytes):
        if text == source:
            parses[asker(traceback.extract_stack())] += 1
        return parse(text)

    monkeypatch.setattr(treesitter, "parse", counting)
    report = pipeline.score_spec(spec, spin(), spin_windows()[:20])
    assert [o.status for o in report.outcomes.values()] == ["ran"] * 4
    assert parses["scorer"] == 1, parses
    # What the two modules above still parse (each phase's pre-check, every TLC run's TLCSet
    # scan, P4's own listings): they exist and are all that is left.
    assert set(parses) == {"scorer", *NOT_YET_WIRED}, parses
