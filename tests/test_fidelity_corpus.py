"""Specs written for the original benchmark (../shared/sysmobench/fidelity, read at test time)
go through all four phases with the adapter a submitter would write and their own cfg: no
phase ends in an internal error, and the bug reproductions show their bug as a violated
contract invariant with a counterexample.

Slow (real TLC on every spec, up to a few minutes each); `bench/fidelity.py` prints the times.
"""

import pytest

from tests.fidelity.corpus import CORPUS, FIDELITY, score

pytestmark = [
    pytest.mark.tla,
    pytest.mark.skipif(not FIDELITY.is_dir(), reason="fidelity corpus not present"),
]
BY_NAME = {entry.name: entry for entry in CORPUS}
# Where the spec itself stops short of P4, and why (not the scorer's doing).
STOPS_BEFORE_P4 = {
    # The spec ASSUMEs every command is a [key: Keys] record; the contract pins commands that
    # also carry an id, so TLC reports the assumption false before exploring anything.
    "curp (bug)": "runtime",
}


def _internal(outcome) -> bool:
    return outcome.status == "error" and bool(outcome.details.get("internal"))


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_every_corpus_spec_goes_through_the_phases_without_a_scorer_error(name):
    entry = BY_NAME[name]
    assert entry.adapter_path.exists(), f"no adapter for {name}"
    report = score(entry)
    assert not [p for p, o in report.outcomes.items() if _internal(o)]
    stop = STOPS_BEFORE_P4.get(name)
    if stop is None:
        assert report.outcomes["invariant"].status != "skipped", report.outcomes["runtime"].details
        assert report.outcomes["syntax"].score == 1.0
        # A refused adapter (e.g. no mapping for an action once the task has traces) is an
        # `error` without `internal`: the corpus adapters must still reach a P3 verdict.
        conformance = report.outcomes["conformance"]
        assert conformance.status != "error", conformance.details
    else:
        assert report.outcomes[stop].score < 1.0
        assert report.outcomes["invariant"].status == "skipped"


def _violated(report, invariant: str):
    found = {i.name: i for i in report.outcomes["invariant"].invariants}[invariant]
    assert found.verdict == "violated", found.reason
    assert found.counterexample, "a violation comes with TLC's counterexample"
    return found.counterexample


def test_mutex_bug_is_two_threads_in_the_critical_section():
    trace = _violated(score(BY_NAME["mutex (bug)"]), "MutualExclusion")
    last = trace[-1]["vars"]
    # The last state has two threads at phase "CS" (the spec's own names, as TLC prints them).
    assert last["phase"].count('"CS"') == 2


def test_etcd_bug_is_two_leaders_in_one_term_through_a_campaigning_learner():
    trace = _violated(score(BY_NAME["etcd (bug)"]), "MoreThanOneLeaderInv")
    assert trace[-1]["vars"]["state"].count('"Leader"') >= 2
    # The learner s1 (cfg: InitialLearners = {s1}) timed out and campaigned on the way.
    assert any(step.get("action", "").startswith("Timeout") for step in trace)


def test_curp_says_which_assumption_the_pinned_commands_break():
    runtime = score(BY_NAME["curp (bug)"]).outcomes["runtime"]
    message = runtime.details["error"]["message"]
    assert message.startswith(
        "The spec's assumption at line 18, `\\A cmd \\in Commands: cmd \\in [key: Keys]`, is false "
        'for the contract\'s pinned constants (Commands = {[id |-> "c1", key |-> "k1"],'
    )
    assert "The contract pins them; the adapter cannot change a pinned value." in message
