"""An evaluation error in some windows gives those windows an error verdict with TLC's message
and leaves every other window's verdict intact; bad window values and unknown adapter actions are
reported, not crashes."""

import pytest

from evaluation.inputs.contracts import parse_adapter
from evaluation.phases.conformance import check_conformance
from tests.conformance_support import replace_once, spin, spin_spec, spin_windows

pytestmark = pytest.mark.tla


def _errors_for_thread_2(spec: str) -> str:
    return replace_once(
        spec,
        'ReleaseLock(t) ==\n  /\\ pc[t] = "locked"\n',
        'ReleaseLock(t) ==\n  /\\ pc[t] = "locked"\n  /\\ IF t = "2" THEN <<>>[1] ELSE TRUE\n',
    )


def test_eval_error_marks_only_the_windows_that_hit_it():
    windows = spin_windows()[:80]
    broken = dict(windows[0], window_id="broken", post_state={"lockState": 7})
    outcome = check_conformance(_errors_for_thread_2(spin_spec()), spin(), windows + [broken])
    by_id = {w.window_id: w for w in outcome.windows}
    hit = [w for w in windows if w["action"] == "ReleaseLock" and w["actor"] == "2"]
    assert hit and len(hit) < len([w for w in windows if w["action"] == "ReleaseLock"])
    for window in windows:
        got = by_id[window["window_id"]]
        if window in hit:
            assert got.verdict == "error"
            assert "out of domain" in got.reason
        else:
            assert got.verdict == "pass", (window, got.reason)
    assert by_id["broken"].verdict == "error"
    assert "7" in by_id["broken"].reason and "window value check" in by_id["broken"].reason
    assert outcome.status == "ran"
    assert {a.action: a.detail["zero_tolerance"] for a in outcome.actions} == {
        "AcquireLock": 0,  # the broken window is an AcquireLock window and does not pass
        "ReleaseLock": 0,
    }


@pytest.mark.parametrize("expr", ["Grab(actor)", "AcquireLock(actor, actor)"])
def test_unresolvable_adapter_action_is_a_phase_error(expr):
    adapter = parse_adapter(
        f"actions:\n  AcquireLock: '{expr}'\n  ReleaseLock: 'ReleaseLock(actor)'\n", spin()
    )
    outcome = check_conformance(spin_spec(), spin(), spin_windows()[:10], adapter)
    assert outcome.status == "error"
    assert outcome.score is None
    assert "AcquireLock" in outcome.details["error"]
