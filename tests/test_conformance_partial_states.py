"""Partial windows constrain only what they give: missing variables and keys take the values of
the states the spec reaches following the trace that agree with what is given, and a given key
is still checked."""

import copy

import pytest

from evaluation.phases.conformance import check_conformance
from tests.conformance_support import spin, spin_spec, spin_windows

pytestmark = pytest.mark.tla


def _first(action: str, pc_before: str) -> dict:
    return next(
        w
        for w in spin_windows()
        if w["action"] == action and w["pre_state"]["pc"][w["actor"]] == pc_before
    )


def _partial(window, window_id, pre=None, post=None) -> dict:
    out = copy.deepcopy(window)
    out["window_id"] = window_id
    # Its own trace: P3 follows a trace's windows in order, and these are separate probes.
    out["trace_id"] = window_id
    out.pop("seq", None)
    if pre is not None:
        out["pre_state"] = pre(out)
    if post is not None:
        out["post_state"] = post(out)
    return out


def test_partial_windows():
    acquire = _first("AcquireLock", "acquiring")
    release = _first("ReleaseLock", "locked")

    def only_actor(state, w):
        return {"pc": {w["actor"]: state["pc"][w["actor"]]}}

    cases = [
        ("post-lock-only", release, None, lambda w: {"lockState": "unlocked"}, "pass"),
        ("post-actor-key", acquire, None, lambda w: only_actor(w["post_state"], w), "pass"),
        (
            "post-wrong-key",
            acquire,
            None,
            lambda w: {"pc": {w["actor"]: "idle"}},
            "fail",
        ),
        (
            "pre-actor-key",
            acquire,
            lambda w: {"lockState": "unlocked", **only_actor(w["pre_state"], w)},
            lambda w: only_actor(w["post_state"], w),
            "pass",
        ),
        (
            "pre-not-enabled",
            release,
            lambda w: {"pc": {w["actor"]: "idle"}},
            lambda w: {"lockState": "unlocked"},
            "fail",
        ),
    ]
    windows = [_partial(w, name, pre, post) for name, w, pre, post, _ in cases]
    outcome = check_conformance(spin_spec(), spin(), windows)
    got = {w.window_id: w for w in outcome.windows}
    assert {name: got[name].verdict for name, *_ in cases} == {
        name: expected for name, *_, expected in cases
    }
