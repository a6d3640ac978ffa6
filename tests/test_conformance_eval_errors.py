"""An evaluation error in some windows gives those windows an error verdict with TLC's message
and leaves every other window's verdict intact; bad window values and unknown adapter actions are
reported, not crashes."""

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract, parse_adapter
from evaluation.phases.conformance import check_conformance
from evaluation.windows import cut_windows
from tests.conformance_support import replace_once, spin, spin_spec, spin_windows
from tests.reference_support import read_reference

pytestmark = pytest.mark.tla


def _errors_on(spec: str, log_len: int, commit: int) -> str:
    """The etcd reference, with node 2's append handler failing at one log length and commit
    index (few windows, so the reruns that pin each error stay few)."""
    return replace_once(
        spec,
        'HandleAppendEntries(i, m) ==\n  /\\ m.type = "MsgApp"\n',
        "HandleAppendEntries(i, m) ==\n"
        f'  /\\ IF i = "2" /\\ logLen[i] = {log_len} /\\ commitIndex[i] = {commit} '
        "THEN <<>>[1] ELSE TRUE\n"
        '  /\\ m.type = "MsgApp"\n',
    )


def test_eval_error_marks_only_the_windows_that_hit_it():
    # An error in one node's handler is the error of the event whose followed states reach it,
    # not of the events before it.
    contract = load_contract("etcd")
    every = cut_windows(contract, settings.SYSMOBENCH_DATA_DIR)
    # Forty events of one trace and the opening ten of another, which stay short of the error.
    other = [w for w in every if w["trace_id"] != every[0]["trace_id"]][:10]
    windows = every[:40] + [w for w in other if w["trace_id"] == other[0]["trace_id"]]
    appends = [w for w in windows if w["action"] == "HandleAppendEntries" and w["actor"] == "2"]
    at = [w for w in appends if w["trace_id"] == every[0]["trace_id"]][-1]["pre_state"]
    log_len, commit = at["logLen"]["2"], at["commitIndex"]["2"]
    spec = _errors_on(read_reference("etcd", "etcdraft.tla"), log_len, commit)
    broken = dict(windows[0], window_id="broken", post_state={"currentTerm": 7})
    outcome = check_conformance(spec, contract, windows + [broken])
    by_id = {w.window_id: w for w in outcome.windows}
    hit = [
        w
        for w in appends
        if w["pre_state"]["logLen"]["2"] == log_len and w["pre_state"]["commitIndex"]["2"] == commit
    ]
    assert hit and len(hit) < len(appends)
    # Following the traces: TLC evaluates every action from the followed states, so the error
    # belongs to the first event at whose position those states reach the failing handler (at
    # or before the first hit), with TLC's message. Every event before it passes, every event
    # after it is undecided (never a failure of this correct reference), and every trace
    # without a hit passes whole.
    hit_traces = {w["trace_id"] for w in hit}
    for trace in hit_traces:
        events = [w for w in windows if w["trace_id"] == trace]
        verdicts = [by_id[w["window_id"]].verdict for w in events]
        first_error = verdicts.index("error")
        first_hit = min(events.index(w) for w in hit if w["trace_id"] == trace)
        assert first_error <= first_hit
        assert "out of domain" in by_id[events[first_error]["window_id"]].reason
        assert set(verdicts[:first_error]) <= {"pass"}
        assert set(verdicts[first_error + 1 :]) <= {"undecided"}
    for window in windows:
        if window["trace_id"] not in hit_traces:
            assert by_id[window["window_id"]].verdict == "pass", window
    assert any(w["trace_id"] not in hit_traces for w in windows)
    assert by_id["broken"].verdict == "error"
    assert "7" in by_id["broken"].reason and "window value check" in by_id["broken"].reason
    assert outcome.status == "ran"
    zero = {a.action: a.detail["zero_tolerance"] for a in outcome.actions}
    assert zero["HandleAppendEntries"] == 0  # the hit and the broken windows do not pass


def test_an_error_in_the_specs_own_behaviour_is_an_error_never_a_pass_or_fail():
    # Thread 2's release cannot be evaluated: the events where the followed states need it (its
    # own releases, or any step past a state where it holds the lock) are errors with TLC's
    # message; nothing after them is decided against the spec.
    spec = replace_once(
        spin_spec(),
        'ReleaseLock(t) ==\n  /\\ pc[t] = "locked"\n',
        'ReleaseLock(t) ==\n  /\\ pc[t] = "locked"\n  /\\ IF t = "2" THEN <<>>[1] ELSE TRUE\n',
    )
    windows = spin_windows()[:40]
    outcome = check_conformance(spec, spin(), windows)
    assert outcome.status == "ran"
    verdicts = {w.window_id: w.verdict for w in outcome.windows}
    assert "fail" not in verdicts.values()
    errors = [w for w in outcome.windows if w.verdict == "error"]
    assert errors and all("out of" in w.reason for w in errors)
    releases_by_2 = [
        w["window_id"] for w in windows if w["action"] == "ReleaseLock" and w["actor"] == "2"
    ]
    assert releases_by_2 and all(verdicts[i] != "pass" for i in releases_by_2)
    assert outcome.score == 0.0


@pytest.mark.parametrize("expr", ["Grab(actor)", "AcquireLock(actor, actor)"])
def test_unresolvable_adapter_action_is_a_phase_error(expr):
    adapter = parse_adapter(
        f"actions:\n  AcquireLock: '{expr}'\n  ReleaseLock: 'ReleaseLock(actor)'\n", spin()
    )
    outcome = check_conformance(spin_spec(), spin(), spin_windows()[:10], adapter)
    assert outcome.status == "error"
    assert outcome.score is None
    assert "AcquireLock" in outcome.details["error"]
