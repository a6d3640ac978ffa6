"""Every spec of the fidelity corpus (tests/fidelity/corpus.py, CORPUS) is checked by exactly one
of the corpus modules (tests/test_fidelity_corpus_<family>.py): the names its phases test is
parametrized with. A spec added to CORPUS without a module, or put in two, fails here. A
module's bug-specific tests read only specs of its own, so they reuse the report its
parametrized test made in the same process (tests/fidelity/checks.py, `scored`)."""

import ast
import importlib
from collections import Counter
from pathlib import Path

from tests.fidelity.corpus import CORPUS

TESTS = Path(__file__).resolve().parent
PHASES_TEST = "test_every_corpus_spec_goes_through_the_phases_without_a_scorer_error"


def _modules() -> list[Path]:
    return sorted(TESTS.glob("test_fidelity_corpus_*.py"))


def _parametrized_names(path: Path) -> list[str]:
    module = importlib.import_module(f"tests.{path.stem}")
    test = getattr(module, PHASES_TEST, None)
    assert test is not None, f"{path.name} has no {PHASES_TEST}"
    marks = [m for m in getattr(test, "pytestmark", []) if m.name == "parametrize"]
    assert len(marks) == 1 and marks[0].args[0] == "name", f"{path.name}: one parametrize on name"
    return list(marks[0].args[1])


def _names_read_by_scored(path: Path) -> set[str]:
    """The literal names the module passes to `scored(...)` itself."""
    return {
        node.args[0].value
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "scored"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    }


def test_every_corpus_spec_is_in_exactly_one_module():
    modules = _modules()
    assert len(modules) >= 2, "the corpus is split into modules by task family"
    count = Counter(name for path in modules for name in _parametrized_names(path))
    corpus = {entry.name for entry in CORPUS}
    assert not sorted(corpus - set(count)), "corpus specs in no module"
    assert not sorted(name for name, n in count.items() if n > 1), "specs in two modules"
    assert not sorted(set(count) - corpus), "names that are not corpus specs"


def test_a_modules_bug_tests_read_its_own_specs():
    for path in _modules():
        foreign = _names_read_by_scored(path) - set(_parametrized_names(path))
        assert not foreign, f"{path.name} scores specs another module scores: {sorted(foreign)}"
