"""Specs that score without modelling the system get only P1/P2 credit (overall <= 0.30): a spec
whose actions allow every safe change loses P3 to the fair negative windows it accepts and P4 to
the unspecific actions that keep its invariants; a spec whose behaviour never reaches what the
invariants constrain loses P4 as vacuous. The reference spec keeps every point.

The attack specs live in tests/attacks/<task>/ (each says what it does)."""

from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract
from evaluation.phases.conformance.specificity import REFUSAL
from evaluation.phases.invariants import credit
from evaluation.pipeline import score_spec
from evaluation.windows import cut_windows
from tests.conformance_support import spin, spin_spec, spin_windows
from tests.trace_sample import first_traces

pytestmark = pytest.mark.tla
ATTACKS = Path(__file__).resolve().parent / "attacks"
ONLY_P1_P2 = 0.30 + 1e-9


def _attack(task: str, name: str) -> str:
    return (ATTACKS / task / f"{name}.tla").read_text()


def _few() -> list[dict]:
    # An attack is refused window by window: a few whole traces show it (tests/trace_sample.py).
    return first_traces(spin_windows())


def _reasons(report) -> dict[str, str]:
    return {i.name: i.reason for i in report.outcomes["invariant"].invariants}


def _credits(report) -> dict[str, str]:
    return {i.name: i.credit for i in report.outcomes["invariant"].invariants}


def _refusals(report) -> dict[str, str]:
    rows = report.outcomes["conformance"].details["per_action"]
    return {a: r.get("specificity_failure", "") for a, r in rows.items() if r["total"]}


def test_allow_everything_safe_on_spin_gets_only_p1_and_p2():
    report = score_spec(_attack("spin", "allow_everything_safe"), spin(), _few())
    assert report.overall <= ONLY_P1_P2
    conformance = report.outcomes["conformance"]
    # Every real window is accepted: only specificity tells this spec from a model.
    assert all(r["passed"] == r["total"] for r in conformance.details["per_action"].values())
    assert conformance.score == 0
    for action, reason in _refusals(report).items():
        assert reason.startswith(REFUSAL), action
    # Its invariants hold by construction, and are not credited for it.
    assert report.outcomes["invariant"].score == 0
    for name, reason in _reasons(report).items():
        assert reason.startswith(credit.UNSPECIFIC), name
        assert "accept transitions the system never makes" in reason


def test_allow_everything_safe_behind_a_hidden_mode_gets_only_p1_and_p2():
    # Both modes are reachable, so each real window has a strict and a lax pre-state: a
    # negative window counts as accepted when any credited pre-state accepts it.
    report = score_spec(_attack("spin", "hidden_lax_mode"), spin(), _few())
    assert report.overall <= ONLY_P1_P2
    conformance = report.outcomes["conformance"]
    assert all(r["passed"] == r["total"] for r in conformance.details["per_action"].values())
    assert conformance.score == 0
    assert all(r.startswith(REFUSAL) for r in _refusals(report).values())


def test_allow_everything_safe_on_dqueue_gets_only_p1_and_p2():
    contract = load_contract("dqueue")
    windows = cut_windows(contract, settings.SYSMOBENCH_DATA_DIR)
    report = score_spec(_attack("dqueue", "allow_everything_safe"), contract, windows)
    assert report.overall <= ONLY_P1_P2
    assert report.outcomes["conformance"].score == 0
    assert set(_refusals(report)) == {"Request", "Produce"}
    assert all(r.startswith(REFUSAL) for r in _refusals(report).values())
    assert _reasons(report)["ConsumerAlwaysConsumes"].startswith(credit.UNSPECIFIC)


def test_a_spec_whose_behaviour_never_locks_has_only_vacuous_invariants():
    report = score_spec(_attack("spin", "never_locks"), spin(), _few())
    # Its steps change what the contract observes, so P2 counts them and P4 runs ...
    assert report.outcomes["runtime"].score == 1
    assert report.overall <= ONLY_P1_P2
    invariants = report.outcomes["invariant"]
    assert invariants.score == 0
    reasons = _reasons(report)
    # ... and none of its invariants earns its point: those about holding the lock are vacuous;
    # those over callType (no window shows it) are kept by an action that accepts what the
    # system never does.
    assert set(_credits(report).values()) <= {"vacuous", "unspecific"}
    for name in ("MutualExclusion", "LockConsistency", "NoDeadlock", "GuardLifecycle"):
        assert 'never reaches a state where pc takes "locked"' in reasons[name], name
    assert _credits(report)["EventualRelease"] == "vacuous"
    assert invariants.details["credit"]["withdrawn"] == reasons


def test_a_counter_in_place_of_the_system_ends_at_p1():
    report = score_spec(_attack("spin", "counter_only"), spin(), spin_windows())
    assert report.outcomes["runtime"].score == 0
    assert report.outcomes["invariant"].status == "skipped"
    assert report.overall == pytest.approx(0.15)


def test_a_typeok_flag_gets_only_p1_and_p2():
    # A slice of the corpus keeps this spec's enormous TypeOK pre-states affordable.
    windows = spin_windows()[:40]
    report = score_spec(_attack("spin", "typeok_flag"), spin(), windows)
    assert report.overall <= ONLY_P1_P2
    assert report.outcomes["conformance"].score == 0
    # As before credit was typed: every invariant P4 reports (here none: P4 reports no rows) is
    # vacuous.
    assert set(_credits(report).values()) <= {"vacuous"}


def test_the_reference_spec_keeps_every_point():
    report = score_spec(spin_spec(), spin(), spin_windows())
    assert report.overall == pytest.approx(1.0)
    assert _refusals(report) == {"AcquireLock": "", "ReleaseLock": ""}
    credit_details = report.outcomes["invariant"].details["credit"]
    assert credit_details["withdrawn"] == {}
    assert credit_details["not_reached"] == []
