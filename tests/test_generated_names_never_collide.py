"""Every name the scorer generates beside a spec carries the run's nonce
(docs/decisions/0017-generated-names.md), and a spec's module may not take a name TLC, our library
or the scorer's generated modules use (the same record).

The names are collected mechanically: the reference spin spec is scored while every module handed
to SANY/TLC is recorded, and every identifier those generated modules declare (definitions, LET
names, parameters, bound variables) is read back with tree-sitter. With the nonce taken out, each
is a *stem* an honest spec could use. The reference with its identifiers renamed to those stems
(variables, definitions, parameters and bound variables; the rest as extra definitions), scored
through a renaming adapter, must score what the reference scores in every phase."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from evaluation.inputs.contracts import parse_adapter
from evaluation.pipeline import score_spec
from evaluation.tla import tools
from evaluation.tla.sandbox import calls
from evaluation.tla.treesitter import parse, text_of, walk
from evaluation.upload.lint import first_problem
from evaluation.upload.lint_process import check_isolated
from tests.conformance_support import spin, spin_spec, spin_windows
from tests.trace_sample import first_traces

pytestmark = pytest.mark.tla
TASKS_DATA = Path(__file__).resolve().parent.parent / "tasks_data"
# A run's nonce (12 hex digits) opens the strings its generated modules print; P4's prefix is
# `SMB` + 8 hex digits of the spec's hash.
PRINTED_NONCE = re.compile(r'"([0-9a-f]{12})')
P4_PREFIX = re.compile(r"SMB[0-9a-f]{8}")
IDENTIFIER = re.compile(r"^[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*$")
KEYWORDS = set(
    "ASSUME ASSUMPTION AXIOM BOOLEAN CASE CHOOSE CONSTANT CONSTANTS DOMAIN ELSE ENABLED EXCEPT "
    "EXTENDS FALSE IF IN INSTANCE LAMBDA LET LOCAL MODULE OTHER RECURSIVE STRING SUBSET THEN "
    "THEOREM TRUE UNCHANGED UNION VARIABLE VARIABLES WITH".split()
)
# What the spin reference's modules define (spin EXTENDS TLC and FiniteSets).
STANDARD = ("TLC", "FiniteSets", "Naturals", "Sequences")


@contextmanager
def recorded_modules() -> Iterator[list[dict[str, str]]]:
    """Every module set a SANY/TLC call of this process is given (the calls still run)."""
    seen: list[dict[str, str]] = []
    real = calls.run_directory

    def spy(modules, root, cfg):
        seen.append(dict(modules))
        return real(modules, root, cfg)

    calls.run_directory = spy
    try:
        yield seen
    finally:
        calls.run_directory = real


def declared(text: str) -> set[str]:
    return {text_of(n) for n in walk(parse(text.encode()).root_node) if n.type == "identifier"}


def standard_names() -> set[str]:
    with zipfile.ZipFile(tools.jar_path()) as jar:
        texts = [jar.read(f"tla2sany/StandardModules/{m}.tla").decode() for m in STANDARD]
    return set().union(*(declared(t) for t in texts))


def without_nonces(recorded: list[dict[str, str]]):
    texts = [text for modules in recorded for text in modules.values()]
    nonces = {n for text in texts for n in PRINTED_NONCE.findall(text)}

    def strip(name: str) -> str:
        for nonce in nonces:
            name = name.replace(nonce, "")
        return P4_PREFIX.sub("", name)

    return strip


def stems(recorded: list[dict[str, str]], spec: str) -> tuple[set[str], set[str]]:
    """(identifier stems, module-name stems) of the generated modules: each name with its nonce
    taken out as written (`_o_`) and without the underscores around it (`o`)."""
    strip = without_nonces(recorded)
    given = declared(spec) | set(
        re.findall(r"\w+", (TASKS_DATA / "spin" / "task.yaml").read_text())
    )
    names: set[str] = set()
    modules: set[str] = set()
    for module_set in recorded:
        for name, text in module_set.items():
            if text == spec:
                continue
            modules.add(strip(name))
            names |= {n for n in declared(text) if n not in module_set and n not in given}
    out = set()
    for name in names:
        bare = strip(name)
        out |= {bare, re.sub("_+", "_", bare).strip("_")}
    usable = {
        s
        for s in out
        if IDENTIFIER.match(s) and s not in KEYWORDS and not s.startswith(("WF_", "SF_"))
    }
    return usable - standard_names() - given, modules


def renamed(stems_: list[str], text: str) -> tuple[str, str]:
    """A spin spec (the reference or a mutant) with its identifiers renamed to `stems_` (in
    order), every stem left over added as a definition of its own, and the adapter that maps
    the contract onto it."""
    plain = [s for s in stems_ if re.match(r"^[A-Za-z]\w*$", s)]
    slots = ["lockState", "pc", "callType", "vars", "TypeOK", "Init", "Next", "Spec"]
    slots += ["StartLock", "AcquireLock", "ReleaseLock"]
    new = dict(zip(slots, plain, strict=False))
    assert len(new) == len(slots), "too few plain stems to rename the reference"
    for old, name in new.items():
        text = re.sub(rf"(?<![A-Za-z0-9]){old}(?![A-Za-z0-9_])", name, text)
    # Each definition's parameters and bound variables (`t`, `c`) get stems of their own.
    local = iter(plain[len(slots) :])
    chunks = re.split(r"(?m)^(?=\w+(?:\(\w+\))? ==)", text)
    for i, chunk in enumerate(chunks):
        for variable in ("t", "c"):
            if re.search(rf"\b{variable}\b", chunk):
                chunks[i] = re.sub(rf"\b{variable}\b", next(local), chunks[i])
    text = "".join(chunks)
    used = set(new.values()) | set(re.findall(r"\w+", text))
    extra = [f"{s} == 0" for s in stems_ if s not in used]
    text = text.replace("\n====", "\n" + "\n".join(extra) + "\n====", 1)
    adapter = "\n".join(
        [
            "variables:",
            *(f"  {v}: '{new[v]}'" for v in ("lockState", "pc", "callType")),
            "actions:",
            *(f"  {a}: '{new[a]}(actor)'" for a in ("AcquireLock", "ReleaseLock")),
            "behaviour:",
            f"  init: {new['Init']}",
            f"  next: {new['Next']}",
            f"  specification: {new['Spec']}",
        ]
    )
    return text, adapter


def phase_scores(report) -> dict[str, tuple[str, float | None]]:
    return {name: (o.status, o.score) for name, o in report.outcomes.items()}


# The reference passes every window; flipped_guard fails its AcquireLock windows (P3's
# diagnosis and blocking probe run); dropped_guard breaks MutualExclusion (P4's counterexample).
@pytest.mark.parametrize("mutant", [None, "flipped_guard", "dropped_guard"])
def test_a_spec_using_every_generated_stem_scores_as_the_original(mutant):
    original = spin_spec(mutant)
    windows = first_traces(spin_windows())
    with recorded_modules() as recorded:
        expected = score_spec(original, spin(), windows)
    found, _ = stems(recorded, original)
    # The collection sees the watcher's LET and parameter, which once collided
    # (docs/decisions/0017-generated-names.md).
    assert {"o", "k"} <= found
    spec, adapter_text = renamed(sorted(found), original)
    assert first_problem(spec, spin(), parse_adapter(adapter_text, spin())) == ""
    report = score_spec(spec, spin(), windows, parse_adapter(adapter_text, spin()))
    assert phase_scores(report) == phase_scores(expected)
    assert report.overall == expected.overall


def _named(module: str) -> str:
    return spin_spec().replace("MODULE spin ", f"MODULE {module} ", 1)


@pytest.mark.parametrize("module", ["_Runtime", "TLC", "FiniteSetsExt", "Naturals", "ConfWrap1"])
def test_a_reserved_module_name_is_refused_at_upload_in_plain_words(module):
    problem = first_problem(_named(module), spin())
    assert f"the module name {module} is reserved" in problem
    assert "Error" not in problem


def test_a_library_module_name_is_refused_by_the_isolated_check_not_crashed():
    outcome = check_isolated(_named("FiniteSetsExt"), "", "spin", TASKS_DATA, 60)
    assert "the module name FiniteSetsExt is reserved" in outcome.spec
    assert "Try again" not in outcome.spec and "Error" not in outcome.spec


def test_the_generated_module_stems_are_reserved():
    with recorded_modules() as recorded:
        score_spec(spin_spec(), spin(), spin_windows(), phases=("syntax", "runtime"))
    _, modules = stems(recorded, spin_spec())
    generated = modules - {"spin"}
    assert generated
    for module in generated:
        problem = first_problem(_named(module), spin(), names=False)
        assert "is reserved" in problem, module


def test_p2_details_name_no_nonce_so_two_scorings_store_the_same():
    # A mapping TLC cannot evaluate in a reached state: the error names the watcher's module.
    adapter = parse_adapter("variables:\n  lockState: 'pc[\"9\"]'\n", spin())
    first, second = (
        score_spec(
            spin_spec(), spin(), spin_windows(), adapter, phases=("syntax", "runtime")
        ).outcomes["runtime"]
        for _ in range(2)
    )
    assert "_FireWatch" in str(first.details)
    assert first.details == second.details
    assert [a.detail for a in first.actions] == [a.detail for a in second.actions]
