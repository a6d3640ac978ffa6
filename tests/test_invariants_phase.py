"""P4 with the real TLC: the spin contract's invariants on the reference spec and its mutants."""

from dataclasses import replace
from pathlib import Path

import pytest

from evaluation.inputs.adapter_check import identifiers
from evaluation.inputs.contracts import (
    ExcludedInvariant,
    Invariant,
    SchemaVar,
    load_contract,
    parse_adapter,
)
from evaluation.phases.invariants import check_invariants, parse_trace
from evaluation.results import InfrastructureFailure
from evaluation.tla.messages import parse_messages

pytestmark = pytest.mark.tla

TASKS_DIR = Path(__file__).resolve().parent.parent / "tasks_data"
SPIN_DIR = TASKS_DIR / "spin" / "reference"
COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
VARIABLES x
Init == x = 0
Next == x' = IF x < 3 THEN x + 1 ELSE {after_three}
Spec == Init /\\ [][Next]_x
====
"""


@pytest.fixture(scope="module")
def spin():
    return load_contract("spin")


def reference() -> str:
    return (SPIN_DIR / "spin.tla").read_text()


def mutant(name: str) -> str:
    return (SPIN_DIR / "mutants" / f"{name}.tla").read_text()


def with_definitions(spec: str, definitions: str) -> str:
    """The spec with extra top-level definitions just before its closing line."""
    head, sep, tail = spec.rpartition("\n====")
    return f"{head}\n{definitions}\n{sep.lstrip(chr(10))}{tail}"


def verdicts(outcome) -> dict[str, str]:
    return {o.name: o.verdict for o in outcome.invariants}


def test_every_invariant_holds_on_the_reference_spec(spin):
    outcome = check_invariants(reference(), spin)
    assert outcome.phase == "invariant"
    assert outcome.status == "ran"
    assert verdicts(outcome) == {inv.name: "holds" for inv in spin.invariants}
    assert outcome.score == 1.0
    assert outcome.details["fairness"] == [
        "\\A t \\in Threads : WF_vars((ReleaseLock(t)) /\\ (Next))"
    ]


def test_a_dropped_guard_violates_mutual_exclusion_with_a_counterexample(spin):
    outcome = check_invariants(mutant("dropped_guard"), spin)
    found = {o.name: o for o in outcome.invariants}
    mutex = found["MutualExclusion"]
    assert mutex.verdict == "violated"
    assert mutex.counterexample[0]["action"] == "Initial predicate"
    last = mutex.counterexample[-1]
    assert last["action"] == "AcquireLock"
    assert last["vars"]["pc"].count('"locked"') == 2
    assert [s["step"] for s in mutex.counterexample] == list(
        range(1, len(mutex.counterexample) + 1)
    )
    assert found["TryLockNoSpinning"].verdict == "holds"
    holds = sum(1 for o in outcome.invariants if o.verdict == "holds")
    assert outcome.score == pytest.approx(holds / len(spin.invariants))
    assert outcome.score < 1


def test_joint_safety_run_gives_the_same_verdict_and_trace_as_a_lone_run(spin):
    joint = {o.name: o for o in check_invariants(mutant("dropped_guard"), spin).invariants}
    only = replace(
        spin, invariants=tuple(i for i in spin.invariants if i.name == "LockConsistency")
    )
    alone = check_invariants(mutant("dropped_guard"), only).invariants[0]
    assert alone.verdict == joint["LockConsistency"].verdict == "violated"
    assert alone.counterexample == joint["LockConsistency"].counterexample


def test_spec_operators_named_like_invariants_do_not_break_the_check(spin):
    spec = with_definitions(
        reference(), 'MutualExclusion == FALSE\nEventualRelease == "not even a formula"'
    )
    outcome = check_invariants(spec, spin)
    assert verdicts(outcome) == {inv.name: "holds" for inv in spin.invariants}


def test_liveness_fails_without_the_specs_fairness(spin):
    spec = reference().replace(
        "Spec == Init /\\ [][Next]_vars /\\ \\A t \\in Threads : WF_vars(ReleaseLock(t))",
        "Spec == Init /\\ [][Next]_vars",
    )
    assert spec != reference()
    found = {o.name: o for o in check_invariants(spec, spin).invariants}
    release = found["EventualRelease"]
    assert release.kind == "liveness"
    assert release.verdict == "violated"
    assert release.counterexample[-1].get("stuttering") is True
    assert found["MutualExclusion"].verdict == "holds"


def test_a_spec_without_spec_is_checked_without_fairness_and_says_so(spin):
    spec = reference().replace("Spec == ", "FairSpec == ")
    outcome = check_invariants(spec, spin)
    found = {o.name: o for o in outcome.invariants}
    assert outcome.details["fairness"] == "none"
    assert found["GuardLifecycle"].verdict == "violated"
    assert "without fairness" in found["GuardLifecycle"].reason
    assert found["MutualExclusion"].verdict == "holds"


def test_a_starvation_lasso_is_reported_with_its_loop(spin):
    starvation = Invariant(
        name="NoStarvation",
        kind="liveness",
        definition='NoStarvation == \\A t \\in Threads : pc[t] = "acquiring" ~> pc[t] = "locked"',
        template="test",
    )
    fair = reference().replace("WF_vars(ReleaseLock(t))", "WF_vars(Next)")
    outcome = check_invariants(fair, replace(spin, invariants=(starvation,)))
    [result] = outcome.invariants
    assert result.verdict == "violated"
    loop = result.counterexample[-1]
    assert 1 <= loop["back_to"] < loop["step"]


def test_a_check_that_reaches_its_safety_net_is_no_verdict_but_an_infrastructure_failure(spin):
    unbounded = reference().replace(
        "VARIABLES lockState, pc, callType", "VARIABLES lockState, pc, callType, n"
    )
    unbounded = unbounded.replace("EXTENDS TLC,", "EXTENDS Naturals, TLC,")
    unbounded = unbounded.replace(
        "vars == <<lockState, pc, callType>>", "vars == <<lockState, pc, callType, n>>"
    )
    unbounded = unbounded.replace(
        '/\\ lockState = "unlocked"\n  /\\ pc =',
        '/\\ lockState = "unlocked"\n  /\\ n = 0\n  /\\ pc =',
    )
    unbounded = unbounded.replace(
        "Next == \\E t \\in Threads :", "Next == n' = n + 1 /\\ \\E t \\in Threads :"
    )
    budgets = spin.budgets.with_("invariant", wall_seconds=8, per_invariant_seconds=3)
    # P4's safety region is P2's bound: lift it so the exploration cannot end within 3 s.
    budgets = budgets.with_("runtime", depth=10**6, max_states=10**9)
    only = (spin.invariants[0],)
    with pytest.raises(InfrastructureFailure) as failure:
        check_invariants(unbounded, replace(spin, invariants=only, budgets=budgets))
    # Neither a verdict nor a 0: the scoring stops and says why.
    assert "the invariant check reached its safety-net time limit of 3 s" in str(failure.value)
    assert "not a verdict on your spec" in str(failure.value)


def test_excluded_invariants_are_listed_but_not_counted(spin):
    excluded = ExcludedInvariant("Unobservable", "safety", "needs state the traces never record")
    contract = replace(spin, invariants=spin.invariants[:1], excluded_invariants=(excluded,))
    outcome = check_invariants(reference(), contract)
    assert outcome.score == 1.0
    assert outcome.details["excluded"] == [
        {"name": "Unobservable", "kind": "safety", "reason": "needs state the traces never record"}
    ]


def test_invariants_are_read_through_the_adapter(spin):
    own = (
        reference()
        .replace("VARIABLES lockState, pc, callType", "VARIABLES held, pc, callType")
        .replace("<<lockState, pc, callType>>", "<<held, pc, callType>>")
        .replace('lockState \\in {"unlocked", "locked"}', "held \\in BOOLEAN")
        .replace('lockState = "unlocked"', "held = FALSE")
        .replace('lockState\' = "locked"', "held' = TRUE")
        .replace('lockState\' = "unlocked"', "held' = FALSE")
        .replace("UNCHANGED lockState", "UNCHANGED held")
    )
    assert "lockState" not in own
    adapter = parse_adapter(
        'variables:\n  lockState: \'IF held THEN "locked" ELSE "unlocked"\'\n', spin
    )
    assert verdicts(check_invariants(own, spin, adapter)) == {
        inv.name: "holds" for inv in spin.invariants
    }
    # Without the adapter the contract's `lockState` does not exist in the spec: every
    # invariant that reads it is an error, never a pass; the others are checked as usual.
    failed = check_invariants(own, spin)
    reading = {
        inv.name
        for inv in spin.invariants
        if "lockState" in identifiers(inv.definition.split("==", 1)[1])
    }
    assert reading
    for outcome in failed.invariants:
        if outcome.name in reading:
            assert outcome.verdict == "error"
            assert "it reads lockState" in outcome.reason
        else:
            assert outcome.verdict == "holds"
    assert failed.score == pytest.approx(1 - len(reading) / len(spin.invariants))


def test_trace_parser_reads_multiline_values_and_loops():
    output = (
        "@!@!@STARTMSG 2264:1 @!@!@\nThe following behavior constitutes a counter-example:\n"
        "@!@!@ENDMSG 2264 @!@!@\n"
        "@!@!@STARTMSG 2217:4 @!@!@\n1: <Initial predicate>\n/\\ x = 0\n/\\ log = << [a |-> 1,\n"
        "     b |-> 2] >>\n\n@!@!@ENDMSG 2217 @!@!@\n"
        "@!@!@STARTMSG 2217:4 @!@!@\n2: <Step line 9, col 1 to line 9, col 20 of module m>\n"
        "/\\ x = 1\n/\\ log = <<>>\n\n@!@!@ENDMSG 2217 @!@!@\n"
        "@!@!@STARTMSG 2122:4 @!@!@\n1: Back to state: <Step line 9, col 1 to line 9, col 20 "
        "of module m>\n@!@!@ENDMSG 2122 @!@!@\n"
    )
    trace = parse_trace(parse_messages(output))
    assert trace[0]["vars"] == {"x": "0", "log": "<< [a |-> 1,\n     b |-> 2] >>"}
    assert trace[1]["action"] == "Step"
    assert trace[2] == {
        "step": 3,
        "action": "Step",
        "location": "<Step line 9, col 1 to line 9, col 20 of module m>",
        "back_to": 1,
    }


def test_a_constant_without_a_value_is_one_clear_error_and_the_adapter_can_supply_it(spin):
    spec = reference().replace("CONSTANT Threads", "CONSTANT Threads, MaxRetries")
    failed = check_invariants(spec, spin)
    assert failed.status == "error"
    assert len(failed.details["runs"]) == 1  # the same rejection is not repeated per invariant
    assert "MaxRetries" in failed.invariants[0].reason
    assert "adapter" in failed.invariants[0].reason
    adapter = parse_adapter("constants:\n  MaxRetries: '2'\n", spin)
    assert check_invariants(spec, spin, adapter).score == 1.0


def counter_contract(spin, *definitions: str):
    """A contract-like stand-in over one counter `x`: safety invariants given as definitions."""
    invariants = tuple(
        Invariant(name=d.split(" ==", 1)[0], kind="safety", definition=d, template="test")
        for d in definitions
    )
    return replace(
        spin,
        module="Counter",
        constants={},
        schema={"x": SchemaVar("0..3")},
        actions={},
        invariants=invariants,
        excluded_invariants=(),
    )


GROWS = "Grows == [][x' >= x]_x"
BOUNDED = "Bounded == x \\in 0..3"


def test_a_box_action_safety_property_is_checked_as_a_property_and_holds(spin):
    contract = counter_contract(spin, GROWS, BOUNDED)
    outcome = check_invariants(COUNTER.format(after_three="x"), contract)
    assert outcome.details["check_modes"] == {"Grows": "PROPERTY", "Bounded": "INVARIANT"}
    assert verdicts(outcome) == {"Grows": "holds", "Bounded": "holds"}
    assert outcome.score == 1.0


def test_a_violated_box_action_property_has_a_counterexample(spin):
    contract = counter_contract(spin, GROWS, BOUNDED)
    outcome = check_invariants(COUNTER.format(after_three="0"), contract)
    found = {o.name: o for o in outcome.invariants}
    grows = found["Grows"]
    assert grows.kind == "safety"
    assert grows.verdict == "violated"
    assert [s["vars"]["x"] for s in grows.counterexample] == ["0", "1", "2", "3", "0"]
    assert grows.counterexample[-1]["action"] == "Next"
    # The temporal property never joined the state invariants' run, which still holds.
    assert found["Bounded"].verdict == "holds"
    assert outcome.score == 0.5


def test_an_action_level_invariant_is_an_error_asking_for_a_box(spin):
    contract = counter_contract(spin, "Steps == x' >= x", BOUNDED)
    outcome = check_invariants(COUNTER.format(after_three="x"), contract)
    found = {o.name: o for o in outcome.invariants}
    assert outcome.details["check_modes"]["Steps"] == "action"
    assert found["Steps"].verdict == "error"
    assert "[][...]_vars" in found["Steps"].reason
    assert found["Bounded"].verdict == "holds"
    assert all("Steps" not in run["checked"] for run in outcome.details["runs"])


def test_raftkvs_leader_append_only_holds_on_the_reference():
    contract = load_contract("raftkvs")
    spec = (TASKS_DIR / "raftkvs" / "reference" / "raftkvs.tla").read_text()
    outcome = check_invariants(spec, contract)
    found = {o.name: o for o in outcome.invariants}
    assert outcome.details["check_modes"]["LeaderAppendOnly"] == "PROPERTY"
    assert found["LeaderAppendOnly"].verdict == "holds", found["LeaderAppendOnly"].reason
    assert outcome.details["check_modes"]["ElectionSafety"] == "INVARIANT"
    assert found["ElectionSafety"].verdict == "holds"


def test_a_contract_sany_rejects_falls_back_to_the_kind_and_is_an_error(spin):
    contract = counter_contract(spin, "Broken == y > 0", BOUNDED)
    outcome = check_invariants(COUNTER.format(after_three="x"), contract)
    assert outcome.details["check_modes"] == {"Broken": "INVARIANT", "Bounded": "INVARIANT"}
    assert {o.verdict for o in outcome.invariants} == {"error"}
    assert "Unknown operator: `y'" in outcome.invariants[0].reason
