"""P4 sees what the traces reached: a state the spec reached by following a real trace in P3
counts as reached behaviour for P4's credit (evaluation/phases/traced.py), so an invariant over
state deeper than P2's bounded region is not called vacuous when P3 followed a trace there.
Only events P3 passed count, only slots the projection compares exactly, and a folded action's
pre-state (not shown by the spec) never does."""

from dataclasses import replace

import pytest

from evaluation.inputs.contracts import Adapter
from evaluation.phases import credit
from evaluation.phases.conformance import check_conformance
from evaluation.phases.invariants import check_invariants
from evaluation.phases.reach import KEY, Target
from evaluation.phases.traced import reached_by_following
from evaluation.results import PhaseOutcome, WindowOutcome
from evaluation.tla.parsed import parse_spec
from tests.conformance_support import spin, spin_windows

IDLE = {"lockState": "unlocked", "pc": {"0": "idle", "1": "idle"}}
LOCKED = {"lockState": "locked", "pc": {"0": "locked", "1": "idle"}}
PC_SLOT = ((KEY,),)  # the path into any key of pc
TAKES_LOCKED = Target("pc", "locked", (PC_SLOT,))
ANY_LOCKED = Target("lockState", "locked", ((),))
PC_MOVES = Target("pc")
ZERO_ACTS, ONE_ACTS = Target("pc", key="0"), Target("pc", key="1")
ALL = [TAKES_LOCKED, ANY_LOCKED, PC_MOVES, ZERO_ACTS, ONE_ACTS]


def _p3(*windows: tuple[str, dict, dict, str]) -> PhaseOutcome:
    return PhaseOutcome(
        "conformance",
        "ran",
        0.0,
        windows=[
            WindowOutcome(action, "t", str(i), "0", pre, post, verdict, credit="credited")
            for i, (action, pre, post, verdict) in enumerate(windows)
        ],
    )


def _texts(targets: set[Target]) -> set[str]:
    return {t.text() for t in targets}


def test_a_passed_event_shows_the_states_and_the_step_it_took():
    reached = reached_by_following(ALL, _p3(("AcquireLock", IDLE, LOCKED, "pass")), spin())
    assert _texts(reached) == _texts({TAKES_LOCKED, ANY_LOCKED, PC_MOVES, ZERO_ACTS})


@pytest.mark.parametrize("verdict", ["fail", "undecided"])
def test_an_event_not_passed_shows_nothing(verdict):
    assert reached_by_following(ALL, _p3(("AcquireLock", IDLE, LOCKED, verdict)), spin()) == set()


def test_a_p3_that_did_not_run_to_the_end_shows_nothing():
    p3 = _p3(("AcquireLock", IDLE, LOCKED, "pass"))
    assert reached_by_following(ALL, replace(p3, status="error"), spin()) == set()
    assert reached_by_following(ALL, None, spin()) == set()


def test_a_folded_action_shows_its_post_state_but_no_step():
    # A folded action may start from any state at its position: its pre-state and its change
    # are not the spec's, only the state it ends in.
    folded = replace(spin(), folded_steps={"AcquireLock": "the log does not show the wait"})
    shown_before = {"lockState": "locked", "pc": {"0": "idle", "1": "locked"}}
    p3 = _p3(("AcquireLock", shown_before, IDLE, "pass"))
    assert _texts(reached_by_following(ALL, p3, folded)) == set()
    p3 = _p3(("AcquireLock", IDLE, LOCKED, "pass"))
    assert _texts(reached_by_following(ALL, p3, folded)) == _texts({TAKES_LOCKED, ANY_LOCKED})


def test_a_variable_compared_through_a_view_shows_nothing():
    contract = spin()
    viewed = replace(contract.schema["pc"], view='[t \\in DOMAIN pc |-> pc[t] = "locked"]')
    contract = replace(contract, schema={**contract.schema, "pc": viewed})
    p3 = _p3(("AcquireLock", IDLE, LOCKED, "pass"))
    assert _texts(reached_by_following(ALL, p3, contract)) == _texts({ANY_LOCKED})


def test_a_slot_the_window_leaves_out_is_not_a_change():
    partial_pre = {"pc": {"1": "idle"}}
    partial_post = {"pc": {"0": "locked", "1": "idle"}}
    p3 = _p3(("AcquireLock", partial_pre, partial_post, "pass"))
    assert _texts(reached_by_following(ALL, p3, spin())) == _texts({TAKES_LOCKED})


# The spin reference where lock() always spins twice (an unobserved counter) before its CAS
# succeeds: a thread holds the lock four steps after Init, so P2's region of two steps never
# shows it, while P3 follows the traces' lock() events there (the spins are steps the trace
# cannot see).
SPINS_TWICE = """---- MODULE spin ----
EXTENDS TLC, FiniteSets, Naturals
CONSTANT Threads
VARIABLES lockState, pc, callType, spins
vars == <<lockState, pc, callType, spins>>
Init ==
  /\\ lockState = "unlocked"
  /\\ pc = [t \\in Threads |-> "idle"]
  /\\ callType = [t \\in Threads |-> "none"]
  /\\ spins = [t \\in Threads |-> 0]
StartLock(t) ==
  /\\ pc[t] = "idle"
  /\\ pc' = [pc EXCEPT ![t] = "acquiring"]
  /\\ callType' = [callType EXCEPT ![t] = "lock"]
  /\\ spins' = [spins EXCEPT ![t] = 0]
  /\\ UNCHANGED lockState
Spin(t) ==
  /\\ pc[t] = "acquiring"
  /\\ spins[t] < 2
  /\\ spins' = [spins EXCEPT ![t] = @ + 1]
  /\\ UNCHANGED <<lockState, pc, callType>>
AcquireLock(t) ==
  /\\ lockState = "unlocked"
  /\\ pc[t] = "acquiring"
  /\\ spins[t] = 2
  /\\ lockState' = "locked"
  /\\ pc' = [pc EXCEPT ![t] = "locked"]
  /\\ UNCHANGED <<callType, spins>>
ReleaseLock(t) ==
  /\\ pc[t] = "locked"
  /\\ lockState' = "unlocked"
  /\\ pc' = [pc EXCEPT ![t] = "idle"]
  /\\ callType' = [callType EXCEPT ![t] = "none"]
  /\\ UNCHANGED spins
Next == \\E t \\in Threads : StartLock(t) \\/ Spin(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)
Spec == Init /\\ [][Next]_vars
====
"""


@pytest.mark.tla
def test_an_invariant_over_a_state_only_the_traces_reach_is_not_vacuous():
    contract = spin()
    shallow = replace(contract, budgets=contract.budgets.with_("runtime", depth=2))
    windows = [w for w in spin_windows() if w["trace_id"] == "trace_01"]
    p3 = check_conformance(SPINS_TWICE, shallow, windows)
    spec, adapter = parse_spec(SPINS_TWICE), Adapter.identity_for(shallow)
    assert any(w.verdict == "pass" and w.action == "AcquireLock" for w in p3.windows)

    followed = credit.apply(
        check_invariants(spec, shallow, adapter), p3, spec, shallow, adapter, windows
    )
    chosen = replace(p3, windows=[replace(w, verdict="undecided") for w in p3.windows])
    unfollowed = credit.apply(
        check_invariants(spec, shallow, adapter), chosen, spec, shallow, adapter, windows
    )

    def mutex(outcome):
        return next(i for i in outcome.invariants if i.name == "MutualExclusion")

    assert mutex(unfollowed).credit == "vacuous"
    assert 'pc takes "locked"' in mutex(unfollowed).reason
    assert mutex(followed).credit != "vacuous"
    assert 'pc takes "locked"' in followed.details["credit"]["reached_by_following"]
    assert 'pc takes "locked"' in followed.details["credit"]["reached"]
