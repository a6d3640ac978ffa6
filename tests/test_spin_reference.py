"""The spin reference spec satisfies the contract, and each deliberately wrong variant is caught.

Window acceptance is checked here with a small TLC harness of our own (one TLC run per spec over
all windows): the conformance phase is tested elsewhere; this test pins the fixtures themselves.
"""

import pytest

from evaluation.tla.sandbox import Limits, run_tlc
from tests.reference_support import cfg, read_reference, task_fixtures, with_definitions

pytestmark = pytest.mark.tla

LIMITS = Limits(wall_seconds=120, cpu_seconds=240, heap_mb=512)

contract, windows = task_fixtures("spin")


def _tla_fn(mapping: dict) -> str:
    return "(" + " @@ ".join(f'"{k}" :> "{v}"' for k, v in sorted(mapping.items())) + ")"


def _window_record(w: dict) -> str:
    pre, post = w["pre_state"], w["post_state"]
    return (
        f'[act |-> "{w["action"]}", actor |-> "{w["actor"]}", '
        f'preLock |-> "{pre["lockState"]}", prePc |-> {_tla_fn(pre["pc"])}, '
        f'postLock |-> "{post["lockState"]}", postPc |-> {_tla_fn(post["pc"])}]'
    )


def accepted_windows(contract, spec_text: str, windows: list[dict]) -> set[int]:
    """Indexes (1-based) of windows whose post-state the spec's target action can reach."""
    records = ",\n  ".join(_window_record(w) for w in windows)
    harness = f"""---- MODULE SpinWindows ----
EXTENDS spin, TLC, Sequences, Naturals
VARIABLES i, stepped
W == <<
  {records}
>>
CallTypes == {contract.schema["callType"].values.split("->", 1)[1].strip(" ]")}
HInit ==
  /\\ i \\in 1..Len(W)
  /\\ stepped = FALSE
  /\\ lockState = W[i].preLock
  /\\ pc = W[i].prePc
  /\\ callType \\in [Threads -> CallTypes]
Target == IF W[i].act = "AcquireLock" THEN AcquireLock(W[i].actor) ELSE ReleaseLock(W[i].actor)
HNext ==
  /\\ stepped = FALSE
  /\\ Target
  /\\ stepped' = TRUE
  /\\ UNCHANGED i
  /\\ ((lockState' = W[i].postLock /\\ pc' = W[i].postPc) => PrintT(<<"HIT", i>>))
====
"""
    run = run_tlc(
        {"spin": spec_text, "SpinWindows": harness},
        "SpinWindows",
        cfg(contract, "INIT HInit\nNEXT HNext\n"),
        ["-deadlock"],
        LIMITS,
    )
    assert run.status == "ok", run.output[-3000:]
    hits = set()
    for line in run.output.splitlines():
        if line.startswith('<<"HIT", '):
            hits.add(int(line.split(",")[1].strip(" >")))
    return hits


def check_invariants(contract, spec_text: str):
    module = with_definitions(spec_text, [inv.definition for inv in contract.invariants])
    lines = "".join(
        f"{'INVARIANT' if inv.kind == 'safety' else 'PROPERTY'} {inv.name}\n"
        for inv in contract.invariants
    )
    return run_tlc(
        {"spin": module}, "spin", cfg(contract, "SPECIFICATION Spec\n" + lines), ["-deadlock"]
    )


def _read(name: str) -> str:
    return read_reference("spin", name)


def test_contract_invariants_hold_on_the_reference_spec(contract):
    run = check_invariants(contract, _read("spin.tla"))
    assert run.status == "ok", run.output[-3000:]


def test_reference_spec_accepts_every_window(contract, windows):
    assert len(windows) == 304
    assert accepted_windows(contract, _read("spin.tla"), windows) == set(range(1, 305))


def _rejected(contract, windows, name) -> dict[str, int]:
    hits = accepted_windows(contract, _read(f"mutants/{name}.tla"), windows)
    rejected: dict[str, int] = {}
    for index, w in enumerate(windows, start=1):
        if index not in hits:
            rejected[w["action"]] = rejected.get(w["action"], 0) + 1
    return rejected


def test_flipped_guard_fails_every_acquire_window(contract, windows):
    assert _rejected(contract, windows, "flipped_guard") == {"AcquireLock": 152}


def test_wrong_post_state_fails_every_release_window(contract, windows):
    assert _rejected(contract, windows, "wrong_post_state") == {"ReleaseLock": 152}


def test_merged_steps_fail_the_acquires_that_spun_first(contract, windows):
    spun = sum(
        1
        for w in windows
        if w["action"] == "AcquireLock" and w["pre_state"]["pc"][w["actor"]] == "acquiring"
    )
    assert spun == 96
    assert _rejected(contract, windows, "merged_steps") == {"AcquireLock": spun}


def test_dropped_guard_passes_windows_but_breaks_mutual_exclusion(contract, windows):
    assert _rejected(contract, windows, "dropped_guard") == {}
    run = check_invariants(contract, _read("mutants/dropped_guard.tla"))
    assert run.status != "ok"
    assert "MutualExclusion" in run.output
