"""An adapter translates, it never invents: action mappings only call the spec's own actions,
variable and state mappings have no primes, forbidden constructs are found on parsed
identifiers (in the adapter and in every generated module), and state a mapping makes up
cannot earn an invariant."""

import pytest
import yaml

from evaluation.inputs.adapter_check import spec_problems
from evaluation.inputs.contracts import ContractError, parse_adapter
from evaluation.phases.conformance import check_conformance
from evaluation.phases.invariants import check_invariants
from evaluation.tla.sandbox import run_tlc
from tests.conformance_support import spin, spin_spec, spin_windows


def acquire_as(expr: str) -> str:
    """An adapter whose AcquireLock mapping (line 2) is `expr`."""
    return yaml.safe_dump({"actions": {"AcquireLock": expr, "ReleaseLock": "ReleaseLock(actor)"}})


def refused(adapter_text: str) -> str:
    with pytest.raises(ContractError) as error:
        parse_adapter(adapter_text, spin())
    return str(error.value)


def test_permissive_action_mapping_that_does_not_call_the_spec_is_refused():
    # The trick: "any step that lands in the trace's post-state" passes every window.
    message = refused(acquire_as('pc\' = [pc EXCEPT ![actor] = "locked"]'))
    assert "line 2: actions.AcquireLock" in message
    assert "not a call of the spec's actions" in message


def test_extra_conjunct_constraining_the_step_is_refused():
    message = refused(acquire_as('AcquireLock(actor) /\\ lockState\' = "locked"'))
    assert "line 2: actions.AcquireLock" in message and "only \\/ is allowed" in message


def test_primed_argument_and_primed_variable_mapping_are_refused():
    assert "uses a prime" in refused(acquire_as("AcquireLock(pc'[actor])"))
    message = refused(yaml.safe_dump({"variables": {"lockState": "lockState'"}}))
    assert "line 2: variables.lockState" in message and "a prime" in message


def test_tlcset_hidden_by_a_quote_trick_is_found_as_an_identifier():
    expr = 'IF "\\\\" = "(*" THEN TLCSet("exit", TRUE) ELSE "*)"'
    message = refused(yaml.safe_dump({"variables": {"lockState": expr}}))
    assert "TLCSet is refused" in message


def test_disjunctions_and_exists_over_spec_actions_are_accepted():
    text = acquire_as(
        "\\/ AcquireLock(actor)\n\\/ \\E t \\in Threads : (AcquireLock(t) \\/ ReleaseLock(t))"
    )
    adapter = parse_adapter(text, spin())
    assert spec_problems(adapter, spin_spec()) == []


def test_an_action_the_spec_does_not_have_is_mapped_to_false_not_to_another_action():
    # Mapping the contract's action onto some other action of the spec would be an invention;
    # `FALSE` says the spec has none (its windows fail), and nothing else but a call is allowed.
    adapter = parse_adapter(acquire_as("FALSE"), spin())
    assert adapter.actions["AcquireLock"] == "FALSE"
    assert spec_problems(adapter, spin_spec()) == []
    assert "not a call of the spec's actions" in refused(acquire_as("TRUE"))
    assert "not a call of the spec's actions" in refused(acquire_as("AcquireLock(actor) \\/ FALSE"))


def test_calling_a_definition_that_is_not_an_action_of_next_is_refused_at_scoring():
    adapter = parse_adapter(acquire_as("TypeOK"), spin())
    problems = spec_problems(adapter, spin_spec())
    assert problems == [
        "actions.AcquireLock: TypeOK is not an action of the spec's next-state relation Next "
        "(an action mapping may only call the spec's actions)"
    ]
    outcome = check_conformance(spin_spec(), spin(), spin_windows()[:5], adapter)
    assert outcome.status == "error" and "the adapter is refused" in outcome.details["error"]


@pytest.mark.tla
def test_tlcset_in_a_generated_module_never_runs():
    module = '---- MODULE G ----\nEXTENDS TLC\nX == "\\\\" TLCSet(1, 2) "x"\n====\n'
    run = run_tlc({"G": module}, "G", "")
    assert run.status == "error" and "TLCSet" in run.note


@pytest.mark.tla
def test_invariants_over_state_the_adapter_invents_cannot_pass():
    invented = '[t \\in Threads |-> "lock"]'
    adapter = parse_adapter(yaml.safe_dump({"variables": {"callType": invented}}), spin())
    outcome = check_invariants(spin_spec(), spin(), adapter)
    verdicts = {i.name: i for i in outcome.invariants}
    assert outcome.details["not_modelled"] == {"callType": invented}
    assert verdicts["BlockingVsNonBlockingSemantics"].verdict == "error"
    assert verdicts["BlockingVsNonBlockingSemantics"].credit == "not_modelled"
    assert "not modelled by the spec" in verdicts["BlockingVsNonBlockingSemantics"].reason
    # Invariants that read only modelled state keep TLC's verdict.
    assert verdicts["MutualExclusion"].verdict == "holds"
