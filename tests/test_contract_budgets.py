"""Contract budgets are typed: each phase names exactly the keys its code reads, each with one
default (evaluation/inputs/budgets.py), and anything else is refused when the contract loads."""

import shutil

import pytest
import yaml

from evaluation.inputs.budgets import BudgetError, Budgets, RuntimeBudget
from evaluation.inputs.contracts import (
    TASKS_DATA_DIR,
    ContractError,
    load_all_contracts,
    load_contract,
    make_contract,
)
from evaluation.phases._common import limits_for


def spin_with_budgets(tmp_path, budgets):
    shutil.copytree(TASKS_DATA_DIR / "spin", tmp_path / "spin")
    path = tmp_path / "spin" / "task.yaml"
    data = yaml.safe_load(path.read_text())
    if budgets is None:
        data.pop("budgets", None)
    else:
        data["budgets"] = budgets
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_contract("spin", tmp_path)


@pytest.mark.parametrize(
    "phase, key, value",
    [
        ("runtime", "cpu_seconds", 120),
        ("runtime", "seeds", [1, 2, 3]),
        ("runtime", "traces_per_seed", 20),
        ("conformance", "per_window_seconds", 5),
        ("invariant", "workers", 2),
        ("syntax", "depth", 10),
    ],
)
def test_a_key_the_phase_does_not_read_is_refused(tmp_path, phase, key, value):
    with pytest.raises(ContractError) as caught:
        spin_with_budgets(tmp_path, {phase: {key: value}})
    assert f"budgets: {phase}: unknown key(s) {key}" in str(caught.value)


@pytest.mark.parametrize("value", [True, -1, 0, "60", 2.5])
def test_a_depth_that_is_not_a_positive_whole_number_is_refused(tmp_path, value):
    with pytest.raises(ContractError) as caught:
        spin_with_budgets(tmp_path, {"runtime": {"depth": value}})
    assert "budgets: runtime.depth:" in str(caught.value)


def test_an_unknown_phase_is_refused(tmp_path):
    with pytest.raises(ContractError) as caught:
        spin_with_budgets(tmp_path, {"simulation": {"wall_seconds": 5}})
    assert "unknown phase(s) simulation" in str(caught.value)


def test_scratch_cap_in_the_contract_reaches_the_sandbox(tmp_path):
    contract = spin_with_budgets(tmp_path, {"runtime": {"scratch_mb": 4, "heap_mb": 300}})
    limits = limits_for(contract, "runtime")
    assert (limits.scratch_mb, limits.heap_mb) == (4, 300)


def test_one_default_whether_the_contract_is_loaded_or_made_in_a_test(tmp_path):
    loaded = spin_with_budgets(tmp_path, None)
    assert loaded.budgets == Budgets()
    made = make_contract(module="spin")
    for contract in (loaded, made):
        read = [contract.budget("runtime", key) for key in ("depth", "max_states", "seed")]
        assert read == [RuntimeBudget.depth, RuntimeBudget.max_states, RuntimeBudget.seed]
    assert RuntimeBudget.depth == 100


def test_a_contract_made_in_a_test_is_held_to_the_same_keys():
    with pytest.raises(BudgetError, match="unknown key"):
        make_contract(module="spin", budgets={"runtime": {"seeds": [1]}})


def test_every_task_contract_loads_with_typed_budgets():
    contracts = load_all_contracts()
    assert len(contracts) == 11
    assert all(isinstance(c.budgets, Budgets) for c in contracts)


WORK_BOUNDS = {
    "runtime": ("depth", "max_states"),
    "conformance": (
        "gap_steps",
        "free_gap_steps",
        "max_gap_steps",
        "resync_steps",
        "max_states",
        "work_cpu_seconds",
    ),
}


@pytest.mark.parametrize(
    "folder", sorted(p.parent.name for p in TASKS_DATA_DIR.glob("*/task.yaml"))
)
def test_every_contract_states_its_work_bounds(folder):
    # The verdicts are a function of spec, contract and work bounds: the contract says them all
    # itself, so a change of a default cannot move a task's verdicts unseen.
    path = TASKS_DATA_DIR / folder / "task.yaml"
    data = yaml.safe_load(path.read_text())
    stated = data.get("budgets") or {}
    phases = ["runtime"] + (["conformance"] if data.get("traces") else [])
    for phase in phases:
        missing = [k for k in WORK_BOUNDS[phase] if k not in (stated.get(phase) or {})]
        assert not missing, f"{folder}: budgets.{phase} does not state {missing}"
    # P4 has no bounds of its own: it explores P2's region, and the contract says so.
    assert "P4 explores with the runtime bounds" in path.read_text()


def test_the_job_and_container_limits_stay_above_every_contracts_safety_nets():
    from django.conf import settings

    from evaluation.backends.container import ContainerSettings

    margin = ContainerSettings.margin_seconds
    for contract in load_all_contracts():
        worst = contract.budgets.worst_case_seconds(len(contract.invariants))
        assert worst + margin < settings.RQ_JOB_TIMEOUT, contract.slug
