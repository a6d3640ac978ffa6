"""Which behaviour an invariant's credit asks for (evaluation/phases/invariants/credit.py), read
off the contract and the corpus, and what withdraws it. No TLC here: `tests/test_no_score_without_
behaviour.py` runs the rules on real specs."""

from django.conf import settings

from evaluation.inputs.contracts import load_contract
from evaluation.phases.conformance.vocab import schema_vocab
from evaluation.phases.invariants import credit, reach
from evaluation.results import InvariantOutcome, PhaseOutcome, credit_of
from evaluation.windows import cut_windows
from tests.conformance_support import spin, spin_windows


def _plan():
    return credit.plan(spin(), credit.Corpus.read(spin_windows(), spin()))


def test_mutual_exclusion_needs_a_thread_that_holds_the_lock_and_pc_that_moves():
    plan = _plan()
    needed = {t.text() for t in plan.all_of["MutualExclusion"]}
    assert needed == {"pc changes", 'pc takes "locked"'}
    lock_consistency = {t.text() for t in plan.all_of["LockConsistency"]}
    assert 'lockState takes "locked"' in lock_consistency
    assert 'pc takes "locked"' in lock_consistency


def test_a_variable_no_window_shows_is_asked_for_nothing():
    plan = _plan()
    # callType is not in the traces: no value or change of it is asked for.
    assert {t.text() for t in plan.all_of["TryLockNoSpinning"]} == {
        "pc changes",
        'pc takes "acquiring"',
    }
    assert "TryLockNoSpinning" not in plan.any_of


def test_state_the_traces_never_change_only_asks_that_the_spec_changes_something():
    zookeeper = load_contract("zookeeper")
    corpus = credit.Corpus.read(cut_windows(zookeeper, settings.SYSMOBENCH_DATA_DIR), zookeeper)
    assert "lastZxid" in corpus.shown and "lastZxid" not in corpus.changing
    plan = credit.plan(zookeeper, corpus)
    # VoteRecencyConsistency reads only lastZxid, which no window changes: a spec may keep it.
    assert plan.all_of["VoteRecencyConsistency"] == []
    assert {t.var for t in plan.any_of["VoteRecencyConsistency"]} == corpus.changing


def test_a_task_without_traces_has_only_the_rule_that_needs_no_windows():
    curp = load_contract("curp")
    plan = credit.plan(curp, None)
    assert plan.all_of == {}
    assert set(plan.any_of) == {i.name for i in curp.invariants}


def test_targets_reach_into_records_and_sequences_by_the_corpus_paths():
    network = schema_vocab(load_contract("locksvc"))["network"]
    atoms = reach.string_atoms({"0": [{"from": "1", "type": 1}], "1": [{"type": 3}]}, network)
    assert (((reach.KEY,), (reach.KEY,), (reach.FIELD, "from")), "1") in atoms
    target = reach.Target("network", "1", (((reach.KEY,), (reach.KEY,), (reach.FIELD, "from")),))
    text = reach.predicate(target)
    # A record field is read only where the record has it (a grant has no `from`).
    assert '"from" \\in DOMAIN network[k0][k1]' in text
    assert "ToString(" in text  # compared as text: no TLC error on a value of another kind


def _p4(*verdicts):
    invariants = [InvariantOutcome(name, "safety", v, credit=credit_of(v)) for name, v in verdicts]
    holds = sum(1 for _, v in verdicts if v == "holds")
    return PhaseOutcome("invariant", "ran", holds / len(verdicts), invariants=invariants)


def test_unspecific_actions_withdraw_the_credit_of_what_they_change():
    corpus = credit.Corpus.read(spin_windows(), spin())
    p3 = PhaseOutcome(
        "conformance",
        "ran",
        0.5,
        details={
            "per_action": {
                "AcquireLock": {"specificity_failure": "accepts a transition ..."},
                "ReleaseLock": {},
            }
        },
    )
    (mutex,) = [i for i in spin().invariants if i.name == "MutualExclusion"]
    reason = credit._specificity(mutex.definition, spin(), corpus, p3, credit._unspecific(p3))
    assert reason.startswith(credit.UNSPECIFIC)
    assert "AcquireLock accepts transitions the system never makes" in reason
    clean = PhaseOutcome("conformance", "ran", 1.0, details={"per_action": {}})
    assert credit._specificity(mutex.definition, spin(), corpus, clean, {}) == ""
    failed = PhaseOutcome("conformance", "error", 0.0, details={"per_action": {}})
    assert "status error" in credit._specificity(mutex.definition, spin(), corpus, failed, {})


def test_vacuity_names_what_the_spec_never_reaches():
    plan = _plan()
    locked = next(t for t in plan.all_of["MutualExclusion"] if not t.moves)
    moves = next(t for t in plan.all_of["MutualExclusion"] if t.moves)
    measured = reach.Reach(reached={moves}, unreached={locked}, region="within P2's bound")
    assert credit._vacuity("MutualExclusion", plan, measured) == (
        "vacuous",
        'vacuous: within P2\'s bound the spec never reaches a state where pc takes "locked"',
    )
    measured = reach.Reach(reached={moves, locked})
    assert credit._vacuity("MutualExclusion", plan, measured) is None
    unknown = reach.Reach(reached={moves}, undetermined="the time budget ran out")
    withdrawal = credit._vacuity("MutualExclusion", plan, unknown)
    assert withdrawal is not None and withdrawal.credit == "unspecific"


def test_only_invariants_that_hold_are_looked_at():
    outcome = _p4(("MutualExclusion", "violated"))
    assert credit.apply(outcome, None, "", spin(), None, []) is outcome
    assert outcome.invariants[0].verdict == "violated"


def test_an_invariant_over_state_no_window_changes_depends_on_no_action():
    zookeeper = load_contract("zookeeper")
    corpus = credit.Corpus.read(cut_windows(zookeeper, settings.SYSMOBENCH_DATA_DIR), zookeeper)
    (recency,) = [i for i in zookeeper.invariants if i.name == "VoteRecencyConsistency"]
    p3 = PhaseOutcome("conformance", "ran", 0.0, details={"per_action": {}})
    unspecific = {a: "accepts a transition ..." for a in zookeeper.actions}
    assert credit._specificity(recency.definition, zookeeper, corpus, p3, unspecific) == ""
