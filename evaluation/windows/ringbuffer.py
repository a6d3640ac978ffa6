"""Ring buffer: traces of our Asterinas harness (harnesses/asterinas, upstream `RingBuffer<u32>` of
capacity 4 shared by a producer thread and a consumer thread) -> canonical windows over `head`
and `tail`.

Events follow the benchmark's ring-buffer schema (`Create`, `Split`, `Push`, `PushSlice`, `Pop`,
`PopSlice` with the raw wrapping `head`/`tail` after the step, `capacity` and `success`). Windows
give both counters modulo 2 * Capacity, as the contract's schema does. `Create`/`Split` give a
window with nothing changed (unmapped, part of Init); a failed push/pop (`success: false`)
changes nothing and gives no window, as in the benchmark, after checking that it reports the
current counters.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.windows import scenario

VERSION = "1"
FIELDS = {
    "seq": int,
    "action": str,
    "actor": str,
    "head": int,
    "tail": int,
    "capacity": int,
    "success": bool,
}
SIDE = {"Push": "producer", "PushSlice": "producer", "Pop": "consumer", "PopSlice": "consumer"}
SETUP = {"Create", "Split"}


def cut(contract: Contract, files: list[Path]) -> Iterator[dict[str, Any]]:
    capacity = int(contract.constants["Capacity"])
    for path in files:
        yield from _cut_file(path, capacity)


def _cut_file(path: Path, capacity: int) -> Iterator[dict[str, Any]]:
    tid = scenario.trace_id(path)
    head = tail = 0
    modulus = 2 * capacity
    for where, event in scenario.events(path, FIELDS):
        action = event["action"]
        if event["capacity"] != capacity:
            scenario.fail(where, f"capacity {event['capacity']} is not the pinned {capacity}")
        if action not in SIDE and action not in SETUP:
            scenario.fail(where, f"unknown ring buffer event {action!r}")
        expected_actor = SIDE.get(action, "system")
        if event["actor"] != expected_actor:
            scenario.fail(where, f"{action} by {event['actor']!r}, expected {expected_actor!r}")
        new_head, new_tail = event["head"], event["tail"]
        moved_producer = action in SIDE and event["success"] and expected_actor == "producer"
        moved_consumer = action in SIDE and event["success"] and expected_actor == "consumer"
        if not moved_producer and new_tail != tail or not moved_consumer and new_head != head:
            scenario.fail(
                where, f"{action} reports head/tail {new_head}/{new_tail}, was {head}/{tail}"
            )
        if moved_producer and not 1 <= new_tail - tail <= capacity - (tail - head):
            scenario.fail(
                where, f"push of {new_tail - tail} items into {tail - head} of {capacity}"
            )
        if moved_consumer and not 1 <= new_head - head <= tail - head:
            scenario.fail(where, f"pop of {new_head - head} items from {tail - head}")
        if action in SIDE and not event["success"]:
            continue
        pre = {"head": head % modulus, "tail": tail % modulus}
        head, tail = new_head, new_tail
        post = {"head": head % modulus, "tail": tail % modulus}
        yield scenario.window(where, tid, event, event["actor"], pre, post)
