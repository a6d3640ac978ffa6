"""The zookeeper reference spec passes every window of our real-ensemble corpus and the contract's
safety invariants; each deliberately wrong variant is caught, by conformance (P3) or by an
invariant. The expected failures are counted from the windows, not written down."""

import pytest

from tests.reference_support import (
    assert_invariant_violated,
    assert_sany_accepts,
    conformance,
    mutant_failures,
    rates,
    read_reference,
    safety_verdicts,
    spec_files,
    task_fixtures,
)

pytestmark = pytest.mark.tla

SLUG = MODULE = "zookeeper"

contract, windows = task_fixtures(SLUG)


def _totals(windows) -> dict[str, int]:
    totals: dict[str, int] = {}
    for w in windows:
        totals[w["action"]] = totals.get(w["action"], 0) + 1
    return totals


def _all_pass(windows) -> dict[str, tuple[int, int]]:
    return {action: (n, n) for action, n in _totals(windows).items()}


def _round_starts(windows) -> int:
    return sum(
        1
        for w in windows
        if w["action"] == "Notification"
        and w["post_state"]["currentEpoch"][w["actor"]]
        == w["pre_state"]["currentEpoch"][w["actor"]] + 1
    )


def _new_same_round_records(windows) -> int:
    """LOOKING notifications of the handler's own round that change what it has recorded."""
    count = 0
    for w in windows:
        m, pre, actor = w.get("input"), w["pre_state"], w["actor"]
        if w["action"] != "HandleNotification" or m["state"] != "LOOKING":
            continue
        if m["electionEpoch"] == pre["currentEpoch"][actor]:
            count += pre["recvVotes"][actor][m["from"]] != m["leader"]
    return count


def test_the_corpus_covers_every_target_action_and_every_scenario(windows):
    totals = _totals(windows)
    assert set(totals) == {"Notification", "HandleNotification", "BecomeLeader"}
    assert {w["trace_id"].rsplit("-", 1)[0] for w in windows} == {
        "cold-start",
        "leader-killed",
        "newer-zxid",
    }
    # Both kinds of notification are handled: votes in a round and news of an elected leader.
    states = {w["input"]["state"] for w in windows if w["action"] == "HandleNotification"}
    assert states == {"LOOKING", "FOLLOWING", "LEADING"}


@pytest.mark.parametrize("name", spec_files(MODULE))
def test_sany_accepts_the_spec(name):
    assert_sany_accepts(MODULE, read_reference(SLUG, name), name)


def test_reference_scores_p3_one(contract, windows):
    outcome = conformance(read_reference(SLUG, f"{MODULE}.tla"), contract, windows)
    assert outcome.score == 1.0
    assert rates(outcome) == _all_pass(windows)


def test_contract_safety_invariants_hold_on_the_reference(contract):
    verdicts = safety_verdicts(read_reference(SLUG, f"{MODULE}.tla"), contract)
    safety = [i.name for i in contract.invariants if i.kind == "safety"]
    assert verdicts == dict.fromkeys(safety, "holds")


@pytest.mark.parametrize(
    "mutant, failing, count",
    [
        ("flipped_guard", "BecomeLeader", lambda ws: _totals(ws)["BecomeLeader"]),
        ("wrong_post_state", "HandleNotification", _new_same_round_records),
        ("merged_steps", "Notification", _round_starts),
    ],
)
def test_mutant_fails_the_windows_it_should_and_no_other(contract, windows, mutant, failing, count):
    expected_failures = count(windows)
    assert expected_failures > 0
    failures = mutant_failures(SLUG, mutant, contract, windows)
    assert set(failures) == {failing}
    assert 1 <= failures[failing] <= expected_failures


def test_dropped_guard_passes_every_window_but_leads_without_a_quorum(contract, windows):
    spec = read_reference(SLUG, "mutants/dropped_guard.tla")
    outcome = conformance(spec, contract, windows)
    # Every real window passes; the safety negatives (a real step moved into a state without a
    # quorum, conformance/safety.py) are what P3 now catches the dropped guard by.
    assert all(w.verdict == "pass" for w in outcome.windows)
    assert outcome.score is not None and outcome.score < 1.0
    assert_invariant_violated(MODULE, spec, contract, "LeaderHasQuorum")
