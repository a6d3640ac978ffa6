"""The spin reference spec passes every window cut from our harness's SpinLock traces
(harnesses/asterinas/traces/spin, upstream `ostd` 0.16.0 from crates.io) in the real conformance
phase; each mutant fails the windows it was written to break and no other.

The spin contract still scores SysMoBench's canonical windows (tests/test_spin_reference.py);
these traces are cut here with a contract whose `traces:` names them.
"""

from dataclasses import replace

import pytest

from evaluation.inputs.contracts import Traces, load_contract
from evaluation.windows import cut_windows
from tests.reference_support import (
    assert_fails_exactly,
    assert_invariant_violated,
    conformance,
    rates,
    read_reference,
)
from tests.trace_sample import first_traces

pytestmark = pytest.mark.tla

SLUG = "spin"
TRACES = Traces("asterinas-spin", ("harnesses/asterinas/traces/spin/trace_*.jsonl",), "project")


@pytest.fixture(scope="module")
def contract():
    return replace(load_contract(SLUG), traces=TRACES)


@pytest.fixture(scope="module")
def windows(contract):
    return cut_windows(contract, "unused-data-dir")


def _spun_first(w) -> bool:
    return w["action"] == "AcquireLock" and w["pre_state"]["pc"][w["actor"]] == "acquiring"


def _lost(mutant: str, contract, windows) -> dict[str, str]:
    outcome = conformance(read_reference(SLUG, f"mutants/{mutant}.tla"), contract, windows)
    return {w.window_id: w.verdict for w in outcome.windows if w.verdict != "pass"}


def test_reference_passes_every_window(contract, windows):
    outcome = conformance(read_reference(SLUG, "spin.tla"), contract, windows)
    totals = {a: sum(w["action"] == a for w in windows) for a in ("AcquireLock", "ReleaseLock")}
    assert all(totals.values())
    assert outcome.score == 1.0
    assert rates(outcome) == {a: (n, n) for a, n in totals.items()}


@pytest.mark.parametrize(
    "mutant, intended",
    [
        ("flipped_guard", lambda w: w["action"] == "AcquireLock"),
        ("wrong_post_state", lambda w: w["action"] == "ReleaseLock"),
        ("merged_steps", _spun_first),
    ],
)
def test_mutant_fails_exactly_the_windows_it_breaks(contract, windows, mutant, intended):
    assert_fails_exactly(SLUG, mutant, contract, first_traces(windows), intended)


def test_dropped_guard_passes_every_window_but_breaks_mutual_exclusion(contract, windows):
    assert _lost("dropped_guard", contract, windows) == {}
    spec = read_reference(SLUG, "mutants/dropped_guard.tla")
    assert_invariant_violated(SLUG, spec, contract, "MutualExclusion")
