"""Cutting our Asterinas harness traces (spin, mutex, rwmutex, ringbuffer) into windows: the
committed corpus cuts cleanly with every event accounted for, and damaged traces are refused with
the place and the reason."""

import json
from collections import Counter
from dataclasses import replace

import pytest

from evaluation.inputs.contracts import Traces, load_contract
from evaluation.windows import WindowFormatError, cut_with_summary, trace_files

SLUGS = ("mutex", "rwmutex", "ringbuffer")
# Events that mark a thread entering a blocking call: bookkeeping, never a window.
CALLS = {"LockCall", "ReadCall", "WriteCall", "UpreadCall"}


def _events(files) -> list[dict]:
    return [json.loads(line) for f in files for line in f.read_text().splitlines()]


@pytest.mark.parametrize("slug", SLUGS)
def test_committed_corpus_gives_a_window_per_state_changing_event(slug):
    contract = load_contract(slug)
    cut = cut_with_summary(contract, "unused-data-dir")
    events = _events(cut.files)
    changing = Counter(
        e["action"] for e in events if e["action"] not in CALLS and e.get("success", True)
    )
    assert cut.events == changing
    assert set(cut.actions) == set(contract.actions)
    assert all(cut.actions[a] > 0 for a in contract.actions)
    assert sum(cut.actions.values()) + sum(cut.unmapped.values()) == sum(changing.values())


def test_mutex_windows_leave_out_threads_inside_lock():
    cut = cut_with_summary(load_contract("mutex"), "unused")
    acquires = [w for w in cut.windows if w["action"] == "AcquireLock"]
    assert {w["pre_state"]["pc"][w["actor"]] for w in acquires} == {"acquiring"}
    # Some acquisition happened while another thread was inside lock() too (real contention).
    assert any(len(w["pre_state"]["pc"]) < 3 for w in cut.windows)
    for w in cut.windows:
        held = [t for t, phase in w["post_state"]["pc"].items() if phase == "locked"]
        assert len(held) == (w["post_state"]["lockState"] == "locked")


def test_rwmutex_blocking_acquisitions_start_from_waiting_when_they_queued():
    cut = cut_with_summary(load_contract("rwmutex"), "unused")
    starts = Counter(
        w["pre_state"]["pc"][w["actor"]] for w in cut.windows if w["action"] == "AcquireWriteLock"
    )
    assert set(starts) == {"idle", "wait_write"}
    assert all(not w["pre_state"]["lockWord"]["beingUpgraded"] for w in cut.windows)


def test_ringbuffer_windows_count_modulo_twice_the_capacity():
    cut = cut_with_summary(load_contract("ringbuffer"), "unused")
    values = {w["post_state"][k] for w in cut.windows for k in ("head", "tail")}
    assert values == set(range(8))


# The spin contract scores SysMoBench's canonical windows; our spin traces use their own cutter.
FORMATS = {"spin": "asterinas-spin"}
SPIN_TRACES = Traces(
    "asterinas-spin", ("harnesses/asterinas/traces/spin/trace_*.jsonl",), "project"
)


def test_spin_corpus_gives_a_window_per_state_changing_event():
    contract = replace(load_contract("spin"), traces=SPIN_TRACES)
    cut = cut_with_summary(contract, "unused-data-dir")
    events = _events(cut.files)
    changing = Counter(e["action"] for e in events if e["action"] != "TryAcquireFail")
    assert cut.events == changing
    assert cut.actions == {
        "AcquireLock": changing["AcquireSuccess"],
        "ReleaseLock": changing["Release"],
    }
    assert cut.unmapped == {"TryAcquireBlocking": changing["TryAcquireBlocking"]}
    # Both entry points acquire, and some acquisition happened while another thread spun.
    starts = Counter(
        w["pre_state"]["pc"][w["actor"]] for w in cut.windows if w["action"] == "AcquireLock"
    )
    assert set(starts) == {"idle", "acquiring"}
    assert any(
        w["action"] == "AcquireLock"
        and any(t != w["actor"] and p == "acquiring" for t, p in w["pre_state"]["pc"].items())
        for w in cut.windows
    )
    assert all(len(w["pre_state"]["pc"]) == 3 for w in cut.windows)


def _cut_lines(tmp_path, slug: str, lines: list[dict]):
    folder = tmp_path / slug
    folder.mkdir()
    (folder / "trace_01.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    contract = load_contract(slug)
    fmt = FORMATS.get(slug, contract.traces.format)
    contract = replace(contract, traces=Traces(fmt, (f"{slug}/trace_*.jsonl",), "data"))
    assert trace_files(contract, tmp_path) == [folder / "trace_01.jsonl"]
    return cut_with_summary(contract, tmp_path)


def _mutex(seq, thread, action, state):
    return {"seq": seq, "thread": thread, "mutex": 0, "state": state, "action": action}


def test_mutex_lock_while_held_is_refused(tmp_path):
    lines = [
        _mutex(0, 0, "TryLock", "locked"),
        _mutex(1, 1, "LockCall", "locked"),
        _mutex(2, 1, "Lock", "locked"),
    ]
    with pytest.raises(WindowFormatError, match=r"trace_01.jsonl:3: Lock outside lock\(\)"):
        _cut_lines(tmp_path, "mutex", lines)


def test_mutex_gap_in_seq_is_refused(tmp_path):
    lines = [_mutex(0, 0, "TryLock", "locked"), _mutex(2, 0, "Unlock", "unlocked")]
    with pytest.raises(WindowFormatError, match="trace_01.jsonl:2: seq 2 where 1 was expected"):
        _cut_lines(tmp_path, "mutex", lines)


def test_mutex_state_that_contradicts_the_history_is_refused(tmp_path):
    lines = [_mutex(0, 0, "TryLock", "unlocked")]
    with pytest.raises(WindowFormatError, match="state 'unlocked' disagrees"):
        _cut_lines(tmp_path, "mutex", lines)


def test_rwmutex_write_under_a_reader_is_refused(tmp_path):
    base = {"rwmutex": 0, "lock_type": "read"}
    lines = [
        {**base, "seq": 0, "thread": 0, "state": "1_reader", "action": "TryReadLock"},
        {**base, "seq": 1, "thread": 1, "state": "write_locked", "action": "TryWriteLock"},
    ]
    with pytest.raises(WindowFormatError, match="TryWriteLock conflicts with the held guards"):
        _cut_lines(tmp_path, "rwmutex", lines)


def test_ringbuffer_overfilling_push_is_refused(tmp_path):
    def rb(seq, action, actor, head, tail):
        return {
            "seq": seq,
            "action": action,
            "actor": actor,
            "rb": 0,
            "head": head,
            "tail": tail,
            "capacity": 4,
            "success": True,
        }

    lines = [rb(0, "Create", "system", 0, 0), rb(1, "PushSlice", "producer", 0, 5)]
    with pytest.raises(WindowFormatError, match="push of 5 items into 0 of 4"):
        _cut_lines(tmp_path, "ringbuffer", lines)


def _spin(seq, thread, action, state, call=None):
    event = {"seq": seq, "thread": thread, "lock": 0, "state": state, "action": action}
    return {**event, "call": call} if call else event


def test_spin_acquire_while_held_is_refused(tmp_path):
    lines = [
        _spin(0, 0, "AcquireSuccess", "locked", "try_lock"),
        _spin(1, 1, "AcquireSuccess", "locked", "try_lock"),
    ]
    with pytest.raises(WindowFormatError, match="trace_01.jsonl:2: thread 1 acquires a held lock"):
        _cut_lines(tmp_path, "spin", lines)


def test_spin_lock_acquisition_without_entering_lock_is_refused(tmp_path):
    # A blocking acquisition must come from the spin path its TryAcquireBlocking opened.
    lines = [_spin(0, 2, "AcquireSuccess", "locked", "lock")]
    with pytest.raises(WindowFormatError, match="thread 2 acquires from 'idle'"):
        _cut_lines(tmp_path, "spin", lines)


def test_spin_acquisition_of_unknown_call_is_refused(tmp_path):
    lines = [_spin(0, 0, "AcquireSuccess", "locked", "steal")]
    with pytest.raises(WindowFormatError, match="call 'steal' is not lock or try_lock"):
        _cut_lines(tmp_path, "spin", lines)


def test_spin_state_that_contradicts_the_history_is_refused(tmp_path):
    lines = [
        _spin(0, 0, "TryAcquireBlocking", "unlocked"),
        _spin(1, 0, "AcquireSuccess", "unlocked", "lock"),
    ]
    with pytest.raises(WindowFormatError, match="state 'unlocked' disagrees"):
        _cut_lines(tmp_path, "spin", lines)


def test_spin_failed_try_lock_gives_no_window(tmp_path):
    lines = [
        _spin(0, 0, "AcquireSuccess", "locked", "try_lock"),
        _spin(1, 1, "TryAcquireFail", "locked", "try_lock"),
        _spin(2, 0, "Release", "unlocked"),
    ]
    cut = _cut_lines(tmp_path, "spin", lines)
    assert [(w["event"], w["actor"]) for w in cut.windows] == [
        ("AcquireSuccess", "0"),
        ("Release", "0"),
    ]
