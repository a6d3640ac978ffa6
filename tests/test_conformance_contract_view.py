"""A contract may compare a schema variable through a view (schema `<var>.view`): locksvc folds
the message PGo's server holds in `msg` back into the head of its mailbox, and compares neither
`msg` nor the server's label. What the view hides is never compared; what it shows still is.

Real TLC on the locksvc reference spec (identity adapter) and real PGo windows.
"""

import copy

import pytest
from django.conf import settings

from evaluation.inputs.contracts import Adapter, load_contract
from evaluation.phases.conformance import check_conformance
from evaluation.windows import cut_windows
from tests.reference_support import read_reference

pytestmark = pytest.mark.tla


@pytest.fixture(scope="module")
def locksvc():
    contract = load_contract("locksvc")
    return contract, cut_windows(contract, settings.SYSMOBENCH_DATA_DIR)


def _check(contract, windows):
    spec = read_reference("locksvc", "locksvc.tla")
    return check_conformance(spec, contract, windows, Adapter.identity_for(contract))


def _variant(window, suffix, edit):
    out = copy.deepcopy(window)
    out["window_id"] += suffix
    edit(out)
    return out


def _followed(windows, probes):
    """Each probe as the last event of its own copy of the trace it comes from: P3 follows a
    trace from Init, so a window is decided only after the events before it."""
    out = []
    for probe in probes:
        trace = probe["trace_id"]
        original = probe["window_id"].split("#")[0]
        history = []
        for w in windows:
            if w["trace_id"] == trace and w["window_id"] == original:
                break
            if w["trace_id"] == trace:
                history.append(w)
        copy_id = f"{trace}/{probe['window_id']}"
        for w in [*history, probe]:
            out.append({**w, "trace_id": copy_id, "window_id": f"{copy_id}/{w['window_id']}"})
    return out


def _verdicts_of_probes(contract, windows, probes):
    outcome = _check(contract, _followed(windows, probes))
    ends = [f"{p['trace_id']}/{p['window_id']}/{p['window_id']}" for p in probes]
    by_id = {w.window_id: w for w in outcome.windows}
    return [by_id[e] for e in ends]


def test_the_hidden_register_is_not_compared_and_the_mailbox_still_is(locksvc):
    contract, windows = locksvc
    request = next(
        w
        for w in windows
        if w["action"] == "ClientLockRequest" and w["pre_state"]["pc"]["0"] != "serverRespond"
    )
    other = {"from": request["actor"], "type": 2}
    # The reference leaves msg unchanged; a post-state with another msg differs only there.
    msg_changed = _variant(request, "#msg", lambda w: w["post_state"]["msg"].update({"0": other}))
    # A request that never reaches the server's mailbox: the view shows the mailbox as it is.
    lost = _variant(request, "#lost", lambda w: w["post_state"]["network"]["0"].pop())
    got = _verdicts_of_probes(contract, windows, [request, msg_changed, lost])
    assert [w.verdict for w in got] == ["pass", "pass", "fail"]
    assert "network[0]" in got[2].reason


def test_the_server_label_is_not_compared(locksvc):
    contract, windows = locksvc
    grant = next(w for w in windows if w["action"] == "ServerGrantLock")
    label = _variant(
        grant, "#label", lambda w: w["post_state"]["pc"].update({"0": "serverReceive"})
    )
    got = _verdicts_of_probes(contract, windows, [grant, label])
    assert [w.verdict for w in got] == ["pass", "pass"]


def test_a_window_without_what_a_view_reads_is_an_error(locksvc):
    contract, windows = locksvc
    request = next(w for w in windows if w["action"] == "ClientLockRequest")
    partial = _variant(request, "#partial", lambda w: w["pre_state"].pop("msg"))
    outcome = _check(contract, [partial])
    assert outcome.windows[0].verdict == "error"
    assert "view that needs msg given in full" in outcome.windows[0].reason
