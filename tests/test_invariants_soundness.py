"""P4 cannot be gamed: it checks the behaviours of Init/Next (what P2 explores), never a `Spec`
the submitter wrote, takes only fairness that keeps the spec machine closed, refuses a check
that explored nothing, and gives every invariant its own verdict within its own budget."""

import re
import time
from dataclasses import replace
from pathlib import Path

import pytest

from evaluation.inputs.contracts import Adapter, Invariant, SchemaVar, load_contract
from evaluation.phases.invariants import check_invariants, check_modes, lasso_module, levels
from evaluation.phases.invariants.budget import Budget
from evaluation.phases.invariants.build import build_modules
from evaluation.phases.invariants.checking import check_all
from evaluation.results import InfrastructureFailure
from evaluation.tla.sandbox import Limits, run_tlc

pytestmark = pytest.mark.tla

SPIN_DIR = Path(__file__).resolve().parent.parent / "tasks_data" / "spin" / "reference"
COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
VARIABLES x
Init == x = 0
Next == x' = IF x < 3 THEN x + 1 ELSE {after_three}
{spec}
====
"""
FAIR = "Spec == Init /\\ [][Next]_x /\\ WF_x(Next)"


@pytest.fixture(scope="module")
def spin():
    return load_contract("spin")


def spin_text(name: str | None = None) -> str:
    path = SPIN_DIR / "mutants" / f"{name}.tla" if name else SPIN_DIR / "spin.tla"
    return path.read_text()


def with_spec(text: str, spec: str) -> str:
    replaced = re.sub(r"^Spec == .*$", lambda _m: spec, text, count=1, flags=re.MULTILINE)
    assert replaced != text
    return replaced


def verdicts(outcome) -> dict[str, str]:
    return {o.name: o.verdict for o in outcome.invariants}


def counter_contract(spin, *invariants_: tuple[str, str], **budgets):
    """A contract over one counter `x`; invariants given as (kind, definition)."""
    defs = tuple(
        Invariant(name=d.split(" ==", 1)[0], kind=k, definition=d, template="test")
        for k, d in invariants_
    )
    contract = replace(
        spin,
        module="Counter",
        constants={},
        schema={"x": SchemaVar("Nat")},
        actions={},
        invariants=defs,
        excluded_invariants=(),
    )
    for phase, keys in budgets.items():
        contract = replace(contract, budgets=contract.budgets.with_(phase, **keys))
    return contract


def test_a_vacuous_spec_does_not_raise_the_dropped_guard_mutants_score(spin):
    mutant = spin_text("dropped_guard")
    honest = check_invariants(mutant, spin)
    vacuous = check_invariants(with_spec(mutant, "Spec == Init /\\ [][FALSE]_vars"), spin)
    assert verdicts(vacuous)["MutualExclusion"] == "violated"
    assert vacuous.score <= honest.score < 1
    # Without the spec's fairness the release is no longer guaranteed either.
    assert verdicts(vacuous)["EventualRelease"] == "violated"
    assert (
        "declares no WF_/SF_" in {o.name: o for o in vacuous.invariants}["EventualRelease"].reason
    )


def test_a_next_that_never_moves_passes_no_invariant(spin):
    still = spin_text().replace(
        "Next == \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)",
        "Next == \\E t \\in Threads : FALSE /\\ StartLock(t)",
    )
    assert still != spin_text()
    outcome = check_invariants(still, spin)
    assert outcome.score == 0
    assert set(verdicts(outcome).values()) == {"error"}
    assert "no state beyond the 1 initial state" in outcome.invariants[0].reason


def test_a_check_below_the_contracts_minimum_of_states_is_not_a_pass(spin):
    small = replace(spin, budgets=spin.budgets.with_("invariant", min_states=10_000))
    outcome = check_invariants(spin_text(), small)
    assert outcome.score == 0
    assert "the contract asks for at least 10000" in outcome.invariants[0].reason


def test_fairness_on_an_action_next_never_takes_cannot_make_liveness_vacuous(spin):
    contract = counter_contract(spin, ("liveness", "Reaches == <>(x = 3)"))
    stutters = COUNTER.format(after_three="x", spec="Spec == Init /\\ [][Next]_x")
    bogus = COUNTER.format(after_three="x", spec="Spec == Init /\\ [][Next]_x /\\ WF_x(x' = 42)")
    fair = COUNTER.format(after_three="x", spec=FAIR)
    assert verdicts(check_invariants(stutters, contract)) == {"Reaches": "violated"}
    assert verdicts(check_invariants(bogus, contract)) == {"Reaches": "violated"}
    assert verdicts(check_invariants(fair, contract)) == {"Reaches": "holds"}


def test_a_joint_run_at_its_safety_net_leaves_every_invariant_its_own_run(spin):
    # `Slow` never finishes evaluating: the joint run reaches its 4 s net, which decides
    # nothing, and each invariant is then checked alone. The others get their verdicts; Slow's
    # own run reaches its net too, and that is no verdict: the check raises.
    contract = counter_contract(
        spin,
        ("safety", "Small == x <= 3"),
        ("safety", "Positive == x >= 0"),
        # A recursive function is not memoised: 2^60 evaluations.
        (
            "safety",
            "Slow == LET F[n \\in 0..60] == IF n = 0 THEN 1 ELSE F[n-1] + F[n-1] IN F[60] > x",
        ),
    )
    check = build_modules(
        COUNTER.format(after_three="x", spec=FAIR), contract, Adapter.identity_for(contract)
    )
    modes = check_modes(contract)  # a SANY call of its own: before the joint net starts
    budget = Budget(
        joint_deadline=time.monotonic() + 4,
        per_invariant=15,  # room for a lone check of a 4-state counter on a loaded machine
        heap_mb=512,
        scratch_mb=256,
        min_states=2,
    )
    with pytest.raises(InfrastructureFailure, match="safety-net time limit of 15 s"):
        check_all(check, contract, modes, set(), budget)
    assert [(r["checked"], r["status"]) for r in budget.runs] == [
        ("together: Small, Positive, Slow", "timeout"),
        ("Small", "ok"),
        ("Positive", "ok"),
        ("Slow", "timeout"),
    ]


def test_a_liveness_violation_in_a_joint_run_is_a_violation_of_each_property(spin):
    contract = counter_contract(
        spin,
        ("safety", "Small == x <= 3"),
        ("liveness", "Reaches == <>(x = 3)"),
        ("liveness", "Settles == <>[](x = 3)"),
    )
    outcome = check_invariants(
        COUNTER.format(after_three="x", spec="Spec == Init /\\ [][Next]_x"), contract
    )
    found = {o.name: o for o in outcome.invariants}
    assert verdicts(outcome) == {"Small": "holds", "Reaches": "violated", "Settles": "violated"}
    assert found["Reaches"].counterexample[-1].get("stuttering") is True
    joint = [r for r in outcome.details["runs"] if r["checked"].startswith("together")]
    assert any(r["exit_code"] == 13 for r in joint)


def test_a_replayed_joint_counterexample_gives_the_verdicts_of_lone_runs(spin):
    # The joint run's lasso is replayed against each property; the ones it does not violate
    # are checked on their own. Every verdict must be the one a lone run gives.
    found = (
        ("liveness", "Reaches == <>(x = 3)"),
        ("liveness", "Settles == <>[](x = 3)"),
        ("liveness", "Moves == <>(x = 1)"),
        ("liveness", "Bounded == [](x <= 3)"),
    )
    spec = COUNTER.format(after_three="x", spec="Spec == Init /\\ [][Next]_x")
    outcome = check_invariants(spec, counter_contract(spin, *found))
    alone = {
        kind_def[1].split(" ==")[0]: verdicts(
            check_invariants(spec, counter_contract(spin, kind_def))
        ).popitem()[1]
        for kind_def in found
    }
    assert verdicts(outcome) == alone
    assert alone["Bounded"] == "holds" and alone["Reaches"] == "violated"
    replays = [r for r in outcome.details["runs"] if r["checked"].startswith("replay")]
    assert any(r["exit_code"] == 13 for r in replays)


def test_a_lasso_that_is_not_a_fair_behaviour_of_the_spec_violates_nothing(spin):
    contract = counter_contract(spin, ("liveness", "Reaches == <>(x = 3)"))
    check = build_modules(
        COUNTER.format(after_three="x", spec=FAIR), contract, Adapter.identity_for(contract)
    )
    unfair = [{"vars": {"x": "0"}}, {"vars": {"x": "1"}}, {"stuttering": True}]  # WF_x(Next)
    unreachable = [{"vars": {"x": "7"}}, {"vars": {"x": "8"}}, {"back_to": 1}]  # Init is x = 0
    genuine = [{"vars": {"x": "0"}}, {"vars": {"x": "1"}}, {"stuttering": True}]
    cfg = check.cfg(properties=["Reaches"], live=True).replace("Live\n", "LSpec\n")
    exits = {}
    for label, trace, spec_check in (
        ("unfair", unfair, check),
        ("unreachable", unreachable, check),
        ("genuine", genuine, replace(check, fairness=replace(check.fairness, conjuncts=()))),
    ):
        modules = {**check.modules, f"{check.prefix}Lasso": lasso_module(spec_check, trace)}
        run = run_tlc(modules, f"{check.prefix}Lasso", cfg, ["-deadlock"])
        exits[label] = run.exit_code
    # Only a lasso that is a fair behaviour of the spec can violate the property.
    assert exits["unfair"] != 13 and exits["unreachable"] != 13
    assert exits["genuine"] == 13


def test_an_evaluation_error_shows_tlcs_own_message(spin):
    contract = counter_contract(spin, ("safety", "Small == x <= 3"), ("safety", "Pos == x >= 0"))
    broken = COUNTER.format(after_three="<<1>>[5]", spec="")
    outcome = check_invariants(broken, contract)
    assert set(verdicts(outcome).values()) == {"error"}
    for result in outcome.invariants:
        assert "TLC exited with" not in result.reason
        assert "<<1>>" in result.reason or "out of" in result.reason, result.reason


def test_a_level_probe_that_times_out_stops_the_scoring_and_is_asked_again(spin, monkeypatch):
    contract = counter_contract(
        spin, ("safety", "GrowsSlowly == [][x' >= x]_x"), ("safety", "Small == x <= 3")
    )
    monkeypatch.setattr(
        levels, "LEVEL_PROBE_LIMITS", Limits(wall_seconds=0.05, cpu_seconds=1, heap_mb=256)
    )
    # No fallback guess at how to check it: the net reached is the machine's, not a verdict.
    with pytest.raises(InfrastructureFailure, match="safety-net time limit"):
        check_modes(contract)
    monkeypatch.undo()
    assert check_modes(contract) == {"GrowsSlowly": "PROPERTY", "Small": "INVARIANT"}
