"""Safety negatives: a real step moved into another real state, where it breaks a safety
invariant every observed state satisfies (docs/decisions/0015-safety-negatives.md).

A spec whose actions have no guards (a held lock taken again, a lock released by a thread that
does not hold it) passes every real window: each real step is allowed, and the fair negatives
(`fair.py`) change only the post-states of real steps. What it allows beyond them is the same
step taken where the system would never take it. So, per real case W = (action A, actor Y, pre
P, post Q): the slots W changes (Y's own and the scalars, as `fair.slots` reads them) are set, as
in Q, in another real pre-state P2 of the same shape, giving Q2. Where Q2 breaks a safety
invariant of the contract that holds in every state the corpus shows (P2 included), (A, Y, P2,
Q2) is a negative: the system never reaches Q2 from a real state, and a spec that accepts it
from P2 reaches a state its own task says is unsafe. It is fair (it counts, `specificity.py`):
an honest spec's guard rejects the step at P2, or its post-state differs.

The invariants are evaluated by TLC on the states (one run, `ASSUME PrintT`, a nonce the spec
cannot know; no spec module takes part): only invariants over variables every state gives, with
the contract's constants as definitions. Anything TLC cannot evaluate gives no negative (this is
an extra refusal, never a credit). Deterministic order; at most SAFETY_PER_ACTION per action.
"""

from __future__ import annotations

import json
import re
import secrets

from evaluation.details import FairSlot
from evaluation.inputs.adapter_check import identifiers
from evaluation.inputs.contracts import Contract
from evaluation.phases.conformance.cases import Case, case_key
from evaluation.phases.conformance.fair import FairCase, Slot, slots
from evaluation.phases.conformance.vocab import Vocab
from evaluation.tla.sandbox import Limits, run_tlc
from evaluation.tla.values import ValueEncodingError, to_tla
from evaluation.windows.window import State

SAFETY = "neg-safety"
SAFETY_PER_ACTION = 48
MAX_CANDIDATES = 1500  # states given to TLC at most (the real ones first)
EXTENDS = ("Integers", "Sequences", "FiniteSets", "TLC")


def safety_negative_cases(
    real: list[Case], contract: Contract, vocab: dict[str, Vocab], viewed: set[str]
) -> list[Case]:
    real = [c for c in real if c.kind == "real" and set(c.pre) == set(c.post)]
    if not real:
        return []
    shape = max({frozenset(c.pre) for c in real}, key=lambda s: (len(s), sorted(s)))
    real = [c for c in real if frozenset(c.pre) == shape]
    invariants = _checkable(contract, set(shape))
    if not invariants:
        return []
    states = _unique([s for c in real for s in (c.pre, c.post)])
    candidates = _candidates(real, states, vocab, viewed)
    verdicts = _evaluate(contract, invariants, states + [c.post for c in candidates])
    if verdicts is None:
        return []
    real_verdicts = verdicts[: len(states)]
    kept = [i for i in range(len(invariants)) if all(v[i] for v in real_verdicts)]
    names = [invariants[i][0] for i in kept]
    posts = [[verdict[i] for i in kept] for verdict in verdicts[len(states) :]]
    return _breaking(candidates, names, posts)


def _breaking(candidates: list[FairCase], names: list[str], posts: list[list[bool]]) -> list[Case]:
    """The candidates whose post-state breaks one of the invariants `names` (which every real
    state satisfies; `posts` holds each candidate's verdicts on them), at most SAFETY_PER_ACTION
    per action, each with the reason it is a negative."""
    out: list[Case] = []
    per_action: dict[str, int] = {}
    for case, holds in zip(candidates, posts, strict=True):
        broken = [name for name, ok in zip(names, holds, strict=True) if not ok]
        if not broken or per_action.get(case.action, 0) >= SAFETY_PER_ACTION:
            continue
        per_action[case.action] = per_action.get(case.action, 0) + 1
        case.why = (
            f"the step of {case.action} by {case.actor} taken in another real state reaches a "
            f"state that breaks {', '.join(broken)}, which every state of the traces satisfies"
        )
        out.append(case)
    return out


def _checkable(contract: Contract, shown: set[str]) -> list[tuple[str, str]]:
    """(name, body) of the safety invariants over variables the states give."""
    out = []
    for inv in contract.invariants:
        if inv.kind != "safety" or "==" not in inv.definition:
            continue
        body = inv.definition.split("==", 1)[1]
        if identifiers(body) & set(contract.schema) <= shown:
            out.append((inv.name, body))
    return out


def _unique(states: list[State]) -> list[State]:
    seen: dict[str, State] = {}
    for state in states:
        seen.setdefault(json.dumps(state, sort_keys=True), state)
    return list(seen.values())


def _candidates(
    real: list[Case], states: list[State], vocab: dict[str, Vocab], viewed: set[str]
) -> list[FairCase]:
    known = {c.key for c in real}
    pres = _unique([c.pre for c in real])
    out: dict[str, FairCase] = {}
    budget = max(0, MAX_CANDIDATES - len(states))
    for case in sorted(real, key=lambda c: c.key):
        moved = [s for s in slots(case, vocab, viewed) if s.get(case.pre) != s.get(case.post)]
        if not moved:
            continue
        for pre in pres:
            if pre == case.pre or not all(_has(s, pre) for s in moved):
                continue
            post = pre
            for slot in moved:
                post = slot.put(post, slot.get(case.post))
            key = case_key(case.action, case.actor, case.input, pre, post)
            if post == pre or key in known or key in out:
                continue
            out[key] = FairCase(
                key=key,
                action=case.action,
                actor=case.actor,
                input=case.input,
                pre=pre,
                post=post,
                kind=SAFETY,
                windows=list(case.windows),
                changed=[_changed(s, post, case.post) for s in moved],
            )
            if len(out) >= budget:
                return list(out.values())
    return list(out.values())


def _has(slot: Slot, state: State) -> bool:
    if slot.var not in state:
        return False
    value = state[slot.var]
    return slot.key is None or (isinstance(value, dict) and slot.key in value)


def _changed(slot: Slot, post: State, real_post: State) -> FairSlot:
    return {"slot": slot.text(), "negative": slot.get(post), "trace": slot.get(real_post)}


def _evaluate(
    contract: Contract, invariants: list[tuple[str, str]], states: list[State]
) -> list[list[bool]] | None:
    """Per state, whether each invariant holds (None: TLC could not tell)."""
    nonce = secrets.token_hex(6)
    variables = sorted({v for s in states for v in s})
    try:
        rows = ",\n  ".join(
            "[" + ", ".join(f"{v} |-> {to_tla(s[v])}" for v in variables) + "]" for s in states
        )
    except ValueEncodingError:
        return None
    name = f"Sf{nonce}"
    params = ", ".join(variables)
    args = ", ".join(f"S[i].{v}" for v in variables)
    constants = contract.for_conformance().constants
    text = "\n".join(
        [
            f"---- MODULE {name} ----",
            f"EXTENDS {', '.join(EXTENDS)}",
            *(f"{k} == {v}" for k, v in constants.items()),
            *(f"I{n}({params}) == {body}" for n, (_, body) in enumerate(invariants)),
            "S == <<" + rows + ">>",
            "V(i) == <<" + ", ".join(f"I{n}({args})" for n in range(len(invariants))) + ">>",
            f'ASSUME \\A i \\in 1..Len(S) : PrintT(<<"{nonce}", i, V(i)>>)',
            "VARIABLE x",
            "Init == x = 0",
            "Next == UNCHANGED x",
            "====",
        ]
    )
    cfg = "INIT Init\nNEXT Next\n"
    run = run_tlc({name: text + "\n"}, name, cfg, ["-deadlock"], Limits(wall_seconds=120))
    found = _read(run.output, nonce, len(invariants))
    if run.status != "ok" or run.truncated or len(found) != len(states):
        return None
    return [found[i] for i in range(1, len(states) + 1)]


def _read(output: str, nonce: str, count: int) -> dict[int, list[bool]]:
    pattern = rf'<<\s*"{nonce}",\s*(\d+),\s*<<([^>]*)>>\s*>>'
    out: dict[int, list[bool]] = {}
    for index, values in re.findall(pattern, output):
        flags = [v.strip() == "TRUE" for v in values.split(",") if v.strip()]
        if len(flags) == count:
            out[int(index)] = flags
    return out
