"""PGo traces (dqueue, locksvc, raftkvs) -> canonical windows.

A PGo run is one folder of NDJSON files, one per archetype instance; each line is one archetype
step (an MPCal critical section) with its reads and writes. How a run becomes windows:

1. Aborted steps (`isAbort`: rolled back, no effect) are skipped and counted.
2. The run's other steps are put in one order (a linearisation) that respects: each file's own
   order; every vector-clock dependency (step e of X knows X's counter n, so X's last committed
   step with counter <= n comes first); and the mailboxes: a message is sent before it is
   received, and sends to one mailbox come in the order the receiver took them out, so each
   mailbox replays as a FIFO queue. Among steps free to go next, the one with the earliest
   `endTime` (commit time), then file, then line, goes first.
3. Each step's own observations: the values it read or overwrote (pre) and wrote (post); state
   it read and left alone is unchanged; a mailbox it used, from the replay.
4. Replaying the order then gives every window the whole known state: a key's value before the
   run is where it is first read (nothing wrote it earlier) or the profile's documented initial
   value; a step's observations override the replayed value (a disagreement is counted in
   `state_mismatches`). A read-only input stream advances by the profile's rule.
5. `event` is the MPCal label (the old value of the `.pc` write), sometimes qualified
   (`AServer.serverRespond+grant`); the contract maps events to target actions and the
   dispatcher drops the rest as unmapped.
"""

from __future__ import annotations

import bisect
import heapq
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.windows.errors import WindowFormatError
from evaluation.windows.ndjson import read_objects
from evaluation.windows.pgo_profiles import PROFILES, Profile
from evaluation.windows.pgo_values import TlaValueError, Value, parse_value

VERSION = "1"

_MISSING = object()
# Mailbox (the network element's index) -> the messages in it, in order.
Boxes = dict[str, list[Any]]
# Variable -> key (an actor, a mailbox) -> value: a window's state before it is flattened.
StateByKey = dict[str, dict[str, Any]]


@dataclass
class Element:
    tag: str
    archetype: str
    name: str
    index: str | None
    value: Value
    old: Value = _MISSING


@dataclass
class Step:
    where: str
    archetype: str
    self_id: str
    abort: bool
    clock: dict[tuple[str, str], int]
    end: str
    elements: list[Element]
    order: tuple[str, int, int] = ("", 0, 0)
    label: str | None = None
    new_label: str | None = None

    @property
    def process(self) -> tuple[str, str]:
        return (self.archetype, self.self_id)


@dataclass
class RunStats:
    steps: int = 0
    aborted: int = 0
    no_label: int = 0
    fifo_mismatches: int = 0
    state_mismatches: int = 0
    netlen_mismatches: int = 0
    runs: int = 0
    events: Counter[str] = field(default_factory=Counter)


def cut(contract: Contract, files: list[Path]) -> Iterator[dict[str, Any]]:
    yield from cut_runs(_profile(contract), files, RunStats())


def stats(contract: Contract, files: list[Path]) -> RunStats:
    """What cutting these files skipped and repaired (aborted steps, replay mismatches)."""
    result = RunStats()
    for _ in cut_runs(_profile(contract), files, result):
        pass
    return result


def _profile(contract: Contract) -> Profile:
    if contract.slug not in PROFILES:
        raise WindowFormatError(f"{contract.slug}:0: no PGo profile for this task")
    return PROFILES[contract.slug]


def cut_runs(profile: Profile, files: list[Path], result: RunStats) -> Iterator[dict[str, Any]]:
    runs: dict[Path, list[Path]] = defaultdict(list)
    for path in files:
        runs[path.parent].append(path)
    for run_dir in sorted(runs):
        steps = []
        for number, path in enumerate(sorted(runs[run_dir])):
            steps.extend(_read_file(path, number))
        result.runs += 1
        result.steps += len(steps)
        result.aborted += sum(s.abort for s in steps)
        yield from _run_windows(profile, run_dir.name, steps, result)


# --- reading -----------------------------------------------------------------------------------


def _read_file(path: Path, number: int) -> list[Step]:
    steps = []
    for line_no, where, raw in read_objects(path):
        step = _parse_step(raw, where)
        step.order = (step.end, number, line_no)
        steps.append(step)
    return steps


def _parse_step(raw: dict[str, Any], where: str) -> Step:
    for key, kind in (("archetypeName", str), ("self", str), ("isAbort", bool), ("clock", list)):
        if not isinstance(raw.get(key), kind):
            raise WindowFormatError(f"{where}: {key} missing or not a {kind.__name__}")
    if not isinstance(raw.get("csElements"), list):
        raise WindowFormatError(f"{where}: csElements missing or not a list")
    step = Step(
        where=where,
        archetype=raw["archetypeName"],
        self_id=raw["self"],
        abort=raw["isAbort"],
        clock=_clock(raw["clock"], where),
        end=str(raw.get("endTime", "")),
        elements=[_element(e, where) for e in raw["csElements"]],
    )
    if (step.archetype, step.self_id) not in step.clock:
        raise WindowFormatError(f"{where}: clock has no entry for the step's own archetype")
    for element in step.elements:
        if element.name == ".pc" and element.tag == "write":
            step.label = _label(element.old, where)
            step.new_label = _label(element.value, where)
    return step


def _clock(raw: list[Any], where: str) -> dict[tuple[str, str], int]:
    clock = {}
    for entry in raw:
        try:
            (archetype, self_id), counter = entry
        except (TypeError, ValueError):
            raise WindowFormatError(
                f"{where}: clock entry {entry!r} is not [[name, self], n]"
            ) from None
        if not isinstance(counter, int):
            raise WindowFormatError(f"{where}: clock counter {counter!r} is not an integer")
        clock[(str(archetype), str(self_id))] = counter
    return clock


def _element(raw: Any, where: str) -> Element:
    if not isinstance(raw, dict) or raw.get("tag") not in ("read", "write"):
        raise WindowFormatError(f"{where}: csElement without tag read/write")
    name = raw.get("name")
    indices = raw.get("indices")
    if (
        not isinstance(name, dict)
        or not isinstance(name.get("name"), str)
        or not isinstance(indices, list)
    ):
        raise WindowFormatError(f"{where}: csElement without name or indices")
    if len(indices) > 1:
        raise WindowFormatError(
            f"{where}: {name['name']} has {len(indices)} indices; at most 1 is supported"
        )
    element = Element(
        tag=raw["tag"],
        archetype=str(name.get("prefix", "")),
        name=name["name"],
        index=str(indices[0]) if indices else None,
        value=_value(raw.get("value"), where, name["name"]),
    )
    if "oldValue" in raw:
        element.old = _value(raw["oldValue"], where, name["name"])
    return element


def _value(text: Any, where: str, name: str) -> Value:
    if not isinstance(text, str):
        raise WindowFormatError(f"{where}: value of {name} is not a string")
    try:
        return parse_value(text)
    except TlaValueError as exc:
        raise WindowFormatError(f"{where}: value of {name}: {exc}") from None


def _label(value: Value, where: str) -> str:
    if not isinstance(value, str) or "." not in value:
        raise WindowFormatError(f"{where}: .pc value {value!r} is not an MPCal label")
    return value


# --- ordering ----------------------------------------------------------------------------------


def linearize(steps: list[Step], network: str) -> list[Step]:
    """Committed steps in one order consistent with files, vector clocks and FIFO mailboxes."""
    live = [s for s in steps if not s.abort]
    preds: dict[int, set[int]] = {i: set() for i in range(len(live))}
    _program_and_clock_edges(live, preds)
    _mailbox_edges(live, preds, network)
    succs: dict[int, list[int]] = defaultdict(list)
    waiting = {i: len(p) for i, p in preds.items()}
    for i, ps in preds.items():
        for p in ps:
            succs[p].append(i)
    ready = [(live[i].order, i) for i, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(live[i])
        for j in succs[i]:
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(ready, (live[j].order, j))
    if len(out) != len(live):
        stuck = min((s for i, s in enumerate(live) if waiting[i] > 0), key=lambda s: s.order)
        raise WindowFormatError(f"{stuck.where}: steps cannot be ordered (cyclic dependencies)")
    return out


def _program_and_clock_edges(live: list[Step], preds: dict[int, set[int]]) -> None:
    by_process: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for i, step in enumerate(live):
        by_process[step.process].append((step.clock[step.process], i))
    for entries in by_process.values():
        for (_, a), (_, b) in zip(entries, entries[1:], strict=False):
            preds[b].add(a)
    for i, step in enumerate(live):
        for process, counter in step.clock.items():
            if process == step.process or process not in by_process:
                continue
            entries = by_process[process]
            k = bisect.bisect_right(entries, (counter, len(live)))
            if k:
                preds[i].add(entries[k - 1][1])


def _mailbox_edges(live: list[Step], preds: dict[int, set[int]], network: str) -> None:
    sends: dict[str, list[tuple[int, object]]] = defaultdict(list)
    receives: dict[str, list[tuple[int, object]]] = defaultdict(list)
    for i, step in enumerate(live):
        for e in step.elements:
            if e.name == network and e.index is not None:
                (sends if e.tag == "write" else receives)[e.index].append((i, e.value))
    for box, box_sends in sends.items():
        pending = sorted(box_sends, key=lambda item: live[item[0]].order)
        matched = []
        for r, value in sorted(receives.get(box, []), key=lambda item: live[item[0]].order):
            for k, (s, sent) in enumerate(pending):
                if sent == value:
                    matched.append(s)
                    if s != r:
                        preds[r].add(s)
                    del pending[k]
                    break
        chain = matched + [s for s, _ in pending]
        for a, b in zip(chain, chain[1:], strict=False):
            if a != b:
                preds[b].add(a)


# --- replay and windows ------------------------------------------------------------------------


def _run_windows(
    profile: Profile, run_id: str, steps: list[Step], result: RunStats
) -> Iterator[dict[str, Any]]:
    ordered = [s for s in linearize(steps, profile.network) if s.label is not None]
    result.no_label += sum(1 for s in steps if not s.abort and s.label is None)
    partial = _partial_windows(profile, ordered, result)
    state = _initial_state(profile, partial)
    owners = {s.self_id for s in steps if s.archetype in profile.mailbox_archetypes}
    state.setdefault("network", {}).update({o: [] for o in owners - set(state["network"])})
    for seq, window in enumerate(partial):
        read = {var: dict(window["pre_state"].get(var, {})) for var in profile.streams}
        window["pre_state"] = _overlay(state, window["pre_state"], result)
        window["post_state"] = _overlay(window["pre_state"], window["post_state"], None)
        _advance_streams(profile, window, read)
        state = window["post_state"]
        window.update(window_id=f"{profile.slug}/{run_id}/{seq}", trace_id=run_id, seq=seq)
        result.events[window["event"]] += 1
        yield window


def _partial_windows(
    profile: Profile, ordered: list[Step], result: RunStats
) -> list[dict[str, Any]]:
    """Each step's own observations: the keys it read, overwrote and wrote."""
    boxes: Boxes = defaultdict(list)
    known: dict[tuple[str, str], object] = dict(profile.initial_values())
    return [_window(profile, step, boxes, known, result) for step in ordered]


def _initial_state(profile: Profile, partial: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """A key's value before the run: where it is first read, as nothing wrote it before."""
    state: dict[str, dict[str, Any]] = defaultdict(dict)
    for (var, key), value in profile.initial_values().items():
        state[var][key] = value
    written: set[tuple[str, str]] = set()
    for window in partial:
        for var, values in window["pre_state"].items():
            for key, value in values.items():
                if (var, key) not in written and key not in state[var]:
                    state[var][key] = [] if var == "network" else value
        for var, values in window["post_state"].items():
            written.update((var, key) for key in values)
    return {var: dict(values) for var, values in state.items()}


def _overlay(base: dict[str, Any], top: dict[str, Any], result: RunStats | None) -> dict[str, Any]:
    out = {var: dict(values) for var, values in base.items()}
    for var, values in top.items():
        for key, value in values.items():
            current = out.setdefault(var, {}).get(key, _MISSING)
            if result is not None and current is not _MISSING and current != value:
                result.state_mismatches += 1
            out[var][key] = value
    return out


def _advance_streams(
    profile: Profile, window: dict[str, Any], read: dict[str, dict[str, Any]]
) -> None:
    """A stream this step read moves on (dqueue's `s` yields 1, 2, 3, ...)."""
    for var, values in read.items():
        for key, value in values.items():
            window["post_state"][var][key] = profile.stream_next(var, value)


def _window(
    profile: Profile,
    step: Step,
    boxes: Boxes,
    known: dict[tuple[str, str], object],
    result: RunStats,
) -> dict[str, Any]:
    actor = profile.actor(step)
    pre: StateByKey = defaultdict(dict)
    post: StateByKey = defaultdict(dict)
    consumed = None
    if profile.has_pc(step.archetype):
        # Only labelled steps are cut (`_run_windows`); `_parse_step` sets both labels.
        assert step.label is not None and step.new_label is not None
        pre["pc"][actor] = profile.short_label(step.label)
        post["pc"][actor] = profile.short_label(step.new_label)
    for e in step.elements:
        if e.name == profile.network and e.index is not None:
            consumed = _network(profile, e, boxes, pre, post, result) or consumed
            continue
        if e.name == profile.netlen and e.index is not None:
            _netlen(profile, e, boxes, pre, post, result)
            continue
        _state_element(profile, e, actor, known, pre, post)
    _frame(profile, pre, post)
    for var, values in post.items():
        for key, value in values.items():
            known[(var, key)] = value
    window = {
        "_where": step.where,
        "event": profile.event(step),
        "actor": actor,
        "pre_state": {v: dict(k) for v, k in pre.items() if k},
        "post_state": {v: dict(k) for v, k in post.items() if k},
    }
    message = profile.input(step, consumed)
    if message is not None:
        window["input"] = message
    return window


def _state_element(
    profile: Profile,
    e: Element,
    actor: str,
    known: dict[tuple[str, str], object],
    pre: StateByKey,
    post: StateByKey,
) -> None:
    """A state variable's element of a step: a read gives the pre-state (unless the step wrote
    it first), a write the post-state, and the value before it (logged, or last known) the
    pre-state."""
    target = profile.variable(e.archetype, e.name)
    if target is None:
        return
    var, key_rule, _kind = target
    key = actor if key_rule == "self" or e.index is None else e.index
    value = profile.normalise(var, e.value)
    first = key not in pre[var] and key not in post[var]
    if e.tag == "read":
        if first:
            pre[var][key] = value
        return
    if first:
        old = (
            profile.normalise(var, e.old)
            if e.old is not _MISSING
            else known.get((var, key), _MISSING)
        )
        if old is not _MISSING:
            pre[var][key] = old
    post[var][key] = value


def _network(
    profile: Profile,
    e: Element,
    boxes: Boxes,
    pre: StateByKey,
    post: StateByKey,
    result: RunStats,
) -> Any:
    assert e.index is not None  # the caller's condition: a mailbox is an indexed element
    box = boxes[e.index]
    pre["network"].setdefault(e.index, list(box))
    message = profile.normalise_message(e.index, e.value)
    consumed = None
    if e.tag == "write":
        box.append(message)
    elif box and box[0] == message:
        consumed = box.pop(0)
    else:
        result.fifo_mismatches += 1
        if message in box:
            box.remove(message)
        consumed = message
    post["network"][e.index] = list(box)
    return consumed


def _netlen(
    profile: Profile,
    e: Element,
    boxes: Boxes,
    pre: StateByKey,
    post: StateByKey,
    result: RunStats,
) -> None:
    """A read of the mailbox length: the mailbox is part of the window when the replay agrees."""
    assert e.index is not None  # the caller's condition: a mailbox is an indexed element
    box = boxes[e.index]
    if e.value != len(box):
        result.netlen_mismatches += 1
        return
    pre["network"].setdefault(e.index, list(box))
    post["network"].setdefault(e.index, list(box))


def _frame(profile: Profile, pre: StateByKey, post: StateByKey) -> None:
    """State a step read and did not write is unchanged by it; read-only streams are not."""
    for var, values in pre.items():
        if var in profile.streams:
            continue
        for key, value in values.items():
            post[var].setdefault(key, value)
