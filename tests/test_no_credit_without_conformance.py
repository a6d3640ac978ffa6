"""No credit without conformance (docs/decisions/0013-p4-credit.md): P4's credit follows P3, a task
without traces cannot score from P1, P2 and P4 alone, and a P3 that fails never leaves P4 credit
standing.

Each attack is rebuilt from the issue's text (tests/attacks/<task>/, each file says what it
does) and scores no more than P1 and P2 give (0.30) on the official configuration."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract, parse_adapter
from evaluation.phases.invariants import credit
from evaluation.pipeline import score_spec
from evaluation.windows import cut_windows

pytestmark = pytest.mark.tla
ATTACKS = Path(__file__).resolve().parent / "attacks"
ONLY_P1_P2 = 0.30 + 1e-9


def attack(task: str, name: str, windows: bool = True):
    contract = load_contract(task)
    adapter_file = ATTACKS / task / f"{name}.adapter.yaml"
    adapter = parse_adapter(adapter_file.read_text(), contract) if adapter_file.exists() else None
    found = cut_windows(contract, settings.SYSMOBENCH_DATA_DIR) if contract.has_traces else []
    spec = (ATTACKS / task / f"{name}.tla").read_text()
    return score_spec(spec, contract, found if windows else [], adapter)


def credit_of(report):
    return report.outcomes["invariant"].details["credit"]


def test_a_script_earns_no_p4_credit():
    report = attack("spin", "script_three_steps")
    # Its invariants hold of the three states it has; P3's windows are undecided or failed,
    # and only thread "0" ever acts.
    assert report.outcomes["conformance"].score == 0
    assert credit_of(report)["idle_actors"] == ["1", "2"]
    assert report.outcomes["invariant"].score == 0
    assert report.overall <= ONLY_P1_P2


def test_a_counter_whose_adapter_invents_every_observed_value_earns_no_p4_credit():
    report = attack("spin", "counter_invents")
    assert report.outcomes["invariant"].score == 0
    assert report.overall <= ONLY_P1_P2


def test_a_one_step_spec_of_a_task_without_traces_earns_no_more_than_p1_and_p2():
    report = attack("curp", "one_step")
    assert report.outcomes["conformance"].status == "n/a"
    assert report.outcomes["invariant"].score == 0
    assert credit_of(report)["withheld"].startswith(credit.UNSPECIFIC)
    assert "no traces" in credit_of(report)["withheld"]
    assert report.overall <= ONLY_P1_P2


def test_a_constant_too_deep_to_read_leaves_no_p4_credit():
    report = attack("spin", "deep_constant")
    # Whether the reader reads it (windows decided) or not (P3 in error), the spec allows every
    # safe change: P3 is 0, and P4 keeps nothing either way.
    assert report.outcomes["conformance"].score == 0
    assert report.outcomes["invariant"].score == 0
    assert report.overall <= ONLY_P1_P2


def test_no_guards_fails_the_safety_negatives():
    report = attack("spin", "no_guards")
    p3 = report.outcomes["conformance"]
    for action, row in p3.details["per_action"].items():
        # Every real event is explained; the same steps moved into states where another thread
        # holds the lock break MutualExclusion / LockConsistency, and the spec takes them.
        assert row["passed"] == row["total"], action
        assert row["specificity"]["by_family"]["neg-safety"]["wrongly_accepted"] > 0, action
        assert "which every state of the traces satisfies" in row["specificity_failure"]
    assert p3.score == 0
    assert report.overall <= ONLY_P1_P2


def test_no_guards_and_one_actor_cannot_follow_the_other_threads():
    report = attack("spin", "no_guards_one_actor")
    p3 = report.outcomes["conformance"]
    rows = p3.details["per_action"].values()
    # The other threads' unlogged steps (a try-lock's spinning) are no step of its Next: the
    # spec leaves every trace where another thread acts.
    assert all(row["passed"] < row["total"] for row in rows)
    assert p3.score == 0
    assert credit_of(report)["idle_actors"] == ["1", "2"]
    assert report.overall <= ONLY_P1_P2


def test_the_reference_accepts_no_safety_negative():
    contract = load_contract("spin")
    spec = (settings.TASKS_DATA_DIR / "spin" / "reference" / "spin.tla").read_text()
    windows = cut_windows(contract, settings.SYSMOBENCH_DATA_DIR)
    report = score_spec(spec, contract, windows, phases=["syntax", "runtime", "conformance"])
    p3 = report.outcomes["conformance"]
    assert p3.score == 1
    for row in p3.details["per_action"].values():
        safety = row["specificity"]["by_family"]["neg-safety"]
        assert safety["checked"] > 0 and safety["wrongly_accepted"] == 0
