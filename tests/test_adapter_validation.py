"""Adapters: identity when absent, and one clear error per kind of mistake."""

import pytest

from evaluation.inputs.contracts import Adapter, ContractError, load_contract, parse_adapter


@pytest.fixture(scope="module")
def spin():
    return load_contract("spin")


@pytest.fixture(scope="module")
def zookeeper():
    return load_contract("zookeeper")


@pytest.fixture(scope="module")
def curp():
    return load_contract("curp")


def test_absent_adapter_is_the_identity(spin):
    for text in (None, "", "  \n"):
        adapter = parse_adapter(text, spin)
        assert adapter.identity
        assert adapter.variables == {"lockState": "lockState", "pc": "pc", "callType": "callType"}
        assert adapter.actions == {
            "AcquireLock": "AcquireLock(actor)",
            "ReleaseLock": "ReleaseLock(actor)",
        }


def test_identity_binds_the_message_and_quantifies_free_parameters(zookeeper, curp):
    assert Adapter.identity_for(zookeeper).actions["HandleNotification"] == (
        "HandleNotification(actor, msg)"
    )
    curp_actions = Adapter.identity_for(curp).actions
    assert curp_actions["Propose"] == "\\E cmd \\in Commands : Propose(cmd)"
    assert (
        curp_actions["ProcessCommitMsg"] == "\\E cmd \\in Commands : ProcessCommitMsg(actor, cmd)"
    )
    assert curp_actions["Commit"] == "Commit"


def test_a_full_adapter_is_kept_and_marked_non_identity(spin):
    text = """
variables:
  lockState: 'IF lock THEN "locked" ELSE "unlocked"'
  pc: '[t \\in Threads |-> IF pc[t] = "spinning" THEN "acquiring" ELSE pc[t]]'
actions:
  AcquireLock: 'Acquire(actor)'
  ReleaseLock: 'Unlock(actor)'
actors:
  "0": '"t1"'
constants:
  MaxRetries: 2
"""
    adapter = parse_adapter(text, spin)
    assert not adapter.identity
    assert adapter.variables["lockState"] == 'IF lock THEN "locked" ELSE "unlocked"'
    assert adapter.variables["callType"] == "callType"  # left out: maps to itself
    assert adapter.actions == {"AcquireLock": "Acquire(actor)", "ReleaseLock": "Unlock(actor)"}
    assert adapter.actor_expr("0") == '"t1"'
    assert adapter.actor_expr("2") == '"2"'
    assert adapter.constants == {"MaxRetries": "2"}


def test_adapter_repeating_the_identity_is_identity(spin):
    text = "actions:\n  AcquireLock: AcquireLock(actor)\n  ReleaseLock: ReleaseLock(actor)\n"
    assert parse_adapter(text, spin).identity


def _error(text, contract) -> str:
    with pytest.raises(ContractError) as caught:
        parse_adapter(text, contract, file="adapter.yaml")
    return str(caught.value)


def test_unknown_schema_variable(spin):
    message = _error("variables:\n  lock: 'x'\n", spin)
    assert message.startswith("adapter.yaml: variables.lock: unknown schema variable")


def test_missing_target_action(spin):
    message = _error("actions:\n  AcquireLock: 'Acquire(actor)'\n", spin)
    assert message == "adapter.yaml: actions.ReleaseLock: missing target action"


def test_unknown_target_action(spin):
    text = "actions:\n  AcquireLock: A(actor)\n  ReleaseLock: R(actor)\n  Spin: S(actor)\n"
    assert "actions.Spin: unknown target action" in _error(text, spin)


def test_expression_that_does_not_parse(spin):
    message = _error("variables:\n  pc: '[t \\in Threads |-> '\n", spin)
    assert message.startswith("adapter.yaml: variables.pc: TLA+ expression does not parse")
    message = _error("actions:\n  AcquireLock: 'Acquire(actor'\n  ReleaseLock: R(actor)\n", spin)
    assert message.startswith("adapter.yaml: actions.AcquireLock: TLA+ expression does not parse")


def test_override_of_a_pinned_constant(spin):
    message = _error("constants:\n  Threads: '{\"0\"}'\n", spin)
    assert message == (
        "adapter.yaml: constants.Threads: is pinned by the contract and cannot be overridden"
    )


def test_unknown_section_and_bad_yaml(spin):
    assert "(top level): unknown key(s) invariants" in _error("invariants: {}\n", spin)
    assert "(file): invalid YAML" in _error("variables: [\n", spin)
    assert "(top level): expected a mapping" in _error("- a\n- b\n", spin)
