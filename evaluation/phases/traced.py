"""What the spec reached while following the system's traces (P3), as P4's reach targets.

P4 credits an invariant only if the spec's behaviour reaches what it constrains (`credit.py`),
measured by TLC within P2's bounded region (`reach.py`). A Raft spec's leader, or a lock spec's
second holder, may lie deeper than that region while P3 has already followed a real trace to
it. Every event P3 passed was one step of the spec from a state it reached by its own steps
from Init whose projection shows the event's pre-state to one showing its post-state, so:

- a target "takes value v" is reached if a passed event's post-state shows v at one of the
  target's paths, or its pre-state does (except for an action the contract says folds an unlogged
  step: it may start from any state at its position, so its pre-state is not shown);
- a target "changes" (or "changes at key k") is reached if a passed event (not a folded one)
  shows the variable (or its slot k) with different values before and after.

Only slots the projection compares exactly count: a variable the contract compares through a
view is left out (the spec's value is known only through the view). The windows are the public
check's rows; a run that fits only the public windows gets no P4 credit anyway (`credit.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from evaluation.inputs.contracts import Contract
from evaluation.phases.conformance.cases import is_full
from evaluation.phases.conformance.vocab import Vocab, schema_vocab
from evaluation.phases.reach import Target, string_atoms
from evaluation.results import PhaseOutcome


def reached_by_following(
    targets: Iterable[Target], conformance: PhaseOutcome | None, contract: Contract
) -> set[Target]:
    """The targets some event P3 passed shows the spec reaching (see the module doc)."""
    if conformance is None or conformance.status != "ran":
        return set()
    exact = {v for v, var in contract.schema.items() if not var.view}
    vocab = schema_vocab(contract)
    passed = [w for w in conformance.windows if w.verdict == "pass"]
    shown: list[dict[str, Any]] = []  # states the spec reached, as their projections show them
    steps: list[tuple[dict[str, Any], dict[str, Any]]] = []  # one spec step each
    for window in passed:
        shown.append(window.post_state)
        if window.action not in contract.folded_steps:
            shown.append(window.pre_state)
            steps.append((window.pre_state, window.post_state))
    out = set()
    for target in set(targets):
        if target.var not in exact:
            continue
        if target.moves:
            hit = any(_moved(pre, post, target, vocab[target.var]) for pre, post in steps)
        else:
            atoms = {(p, target.value) for p in target.paths}
            hit = any(
                target.var in state and atoms & string_atoms(state[target.var], vocab[target.var])
                for state in shown
            )
        if hit:
            out.add(target)
    return out


def _moved(pre: dict[str, Any], post: dict[str, Any], target: Target, vocab: Vocab) -> bool:
    if target.var not in pre or target.var not in post:
        return False
    before, after = pre[target.var], post[target.var]
    if target.key is not None:
        return (
            isinstance(before, dict)
            and isinstance(after, dict)
            and target.key in before
            and target.key in after
            and before[target.key] != after[target.key]
        )
    if is_full(before, vocab) and is_full(after, vocab):
        return bool(before != after)
    if isinstance(before, dict) and isinstance(after, dict):
        # A partial value: only the keys both give are compared (the others are not observed).
        return any(k in after and before[k] != after[k] for k in before)
    return False
