"""Shared pieces of the per-task reference tests (tests/test_*_reference.py).

Each task module keeps its own expectations (window counts, invariant names, mutants); what
lives here is how a task's reference and mutant specs are read, how its contract and windows are
loaded once per module, and how a spec is checked the same way for every task.
"""

from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract
from evaluation.phases.conformance import check_conformance
from evaluation.phases.invariants import check_invariants
from evaluation.tla.sandbox import Limits, run_sany, run_tlc
from evaluation.windows import cut_windows

TASKS = Path(__file__).resolve().parent.parent / "tasks_data"
# The deliberately wrong variants every task's reference folder ships.
MUTANTS = ("flipped_guard", "wrong_post_state", "merged_steps", "dropped_guard")


def read_reference(slug: str, name: str) -> str:
    """`name` is relative to the task's reference folder, e.g. `mutants/flipped_guard.tla`."""
    return (TASKS / slug / "reference" / name).read_text()


def spec_files(module: str) -> list[str]:
    """The reference spec and its mutants, relative to the reference folder."""
    return [f"{module}.tla", *(f"mutants/{m}.tla" for m in MUTANTS)]


def mutant_names(slug: str) -> list[str]:
    return [
        f"mutants/{p.name}" for p in sorted((TASKS / slug / "reference" / "mutants").glob("*.tla"))
    ]


def task_fixtures(slug: str):
    """Module-scoped `contract` and `windows` fixtures; bind both names in the test module."""

    @pytest.fixture(scope="module")
    def contract():
        return load_contract(slug)

    @pytest.fixture(scope="module")
    def windows(contract):
        return cut_windows(contract, settings.SYSMOBENCH_DATA_DIR)

    return contract, windows


def rates(outcome) -> dict[str, tuple[int, int]]:
    """Per action `(passed, total)`, for the actions that had windows."""
    return {a.action: (a.passed, a.total) for a in outcome.actions if a.total}


def cfg(contract, body: str, constants: dict | None = None) -> str:
    """A TLC config with the contract's pinned constants (some overridden) followed by `body`."""
    values = {**contract.constants, **(constants or {})}
    lines = "".join(f"  {k} = {v}\n" for k, v in values.items())
    return f"CONSTANTS\n{lines}{body}"


def with_definitions(spec_text: str, definitions) -> str:
    """The spec with `definitions` appended before its closing `====`."""
    head, _, _ = spec_text.rstrip().rpartition("\n====")
    body = "\n\n".join(definitions)
    return f"{head}\n\n{body}\n====\n"


def assert_sany_accepts(module: str, spec_text: str, label: str = "") -> None:
    run = run_sany({module: spec_text}, module, Limits(wall_seconds=60))
    assert run.status == "ok", f"{label}: {run.output[-2000:]}"


def conformance(spec_text: str, contract, windows):
    """The real conformance phase (P3), which must have run."""
    outcome = check_conformance(spec_text, contract, windows)
    assert outcome.status == "ran", outcome.details
    return outcome


def tlc_with_invariant(module: str, spec_text: str, contract, name: str, limits: Limits):
    """TLC on the spec's own Spec with one contract invariant added and checked."""
    (invariant,) = [i for i in contract.invariants if i.name == name]
    return run_tlc(
        {module: with_definitions(spec_text, [invariant.definition])},
        module,
        cfg(contract, f"SPECIFICATION Spec\nINVARIANT {name}\n"),
        ["-deadlock"],
        limits,
    )


def assert_invariant_violated(module: str, spec_text: str, contract, name: str) -> None:
    run = tlc_with_invariant(
        module, spec_text, contract, name, Limits(wall_seconds=120, cpu_seconds=240)
    )
    assert run.status != "ok"
    assert f"Invariant {name} is violated" in run.output


def safety_verdicts(spec_text: str, contract) -> dict[str, str]:
    """The invariants phase's verdict on each of the contract's safety invariants."""
    outcome = check_invariants(spec_text, contract)
    return {i.name: i.verdict for i in outcome.invariants if i.kind == "safety"}


def mutant_failures(slug: str, mutant: str, contract, windows) -> dict[str, int]:
    """Per action, the windows a mutant fails. P3 follows each trace, so after the first
    window its defect touches a trace may be left for good: the windows the mutant then cannot
    reach are undecided, never failed, and no window may be an error."""
    outcome = conformance(read_reference(slug, f"mutants/{mutant}.tla"), contract, windows)
    assert outcome.score < 1
    assert {w.verdict for w in outcome.windows} <= {"pass", "fail", "undecided"}
    failures: dict[str, int] = {}
    for w in outcome.windows:
        if w.verdict == "fail":
            failures[w.action] = failures.get(w.action, 0) + 1
    return failures


# --- tests shared by the Raft tasks (etcd, redisraft) ---------------------------------------
# A module that imports these defines SLUG, MODULE (the spec's module name), ALL_PASS (per-action
# (passed, total) of the reference) and SAFETY (the contract's safety invariants), plus the
# `contract` and `windows` fixtures from task_fixtures(SLUG). Importing them keeps the test
# names per module: `tests/test_etcd_reference.py::test_reference_scores_p3_one`.


def test_reference_scores_p3_one(request, contract, windows):
    task = request.module
    outcome = conformance(read_reference(task.SLUG, f"{task.MODULE}.tla"), contract, windows)
    assert outcome.score == 1.0
    assert rates(outcome) == task.ALL_PASS


def test_contract_safety_invariants_hold_on_the_reference(request, contract):
    task = request.module
    verdicts = safety_verdicts(read_reference(task.SLUG, f"{task.MODULE}.tla"), contract)
    assert verdicts == dict.fromkeys(task.SAFETY, "holds")


def test_dropped_guard_passes_every_window_but_elects_two_leaders(request, contract, windows):
    task = request.module
    spec = read_reference(task.SLUG, "mutants/dropped_guard.tla")
    assert conformance(spec, contract, windows).score == 1.0
    assert_invariant_violated(task.MODULE, spec, contract, "MoreThanOneLeaderInv")


# --- tests shared by the Asterinas harness tasks (mutex, rwmutex, ringbuffer) --------------


def assert_fails_exactly(slug: str, mutant: str, contract, windows, intended) -> None:
    """The mutant does not pass the windows `intended(window)` selects (some window), and fails
    no other where it reaches it: any other window it does not pass shows a state its defect
    keeps it from reaching (undecided: P3 credits only the spec's own reachable states; or
    failed where no state of its whole behaviour shows it, `unreachable_in`)."""
    expected = {w["window_id"] for w in windows if intended(w)}
    assert expected
    outcome = conformance(read_reference(slug, f"mutants/{mutant}.tla"), contract, windows)
    lost = {w.window_id: w for w in outcome.windows if w.verdict != "pass"}
    assert expected <= set(lost)
    others = [w for i, w in lost.items() if i not in expected]
    assert [w.window_id for w in others if not _never_reached(w)] == []


def _never_reached(window) -> bool:
    return window.verdict == "undecided" or (
        window.verdict == "fail" and window.detail.get("unreachable_in", 0) > 0
    )
