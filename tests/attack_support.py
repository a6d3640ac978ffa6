"""Attack specs built from a task's public windows (tests/attacks/ holds the hand-written ones).

`replay_table_spec` is the "replay table" cheat (docs/decisions/0006-p3-follows-traces.md): a spec
whose target actions, while a hidden flag `cheat` holds, move the observed state from any public
window's pre-state to its post-state, and otherwise do nothing. Init leaves the flag FALSE and no
step sets it: only an adapter's state mapping (`state: {cheat: ...}`) could put it into a window's
pre-state.
"""

from __future__ import annotations

from evaluation.tla.values import to_tla


def start_state(contract, windows: list[dict]) -> dict:
    """The replay spec's initial state: the first window pre-state that gives every variable."""
    return next(w["pre_state"] for w in windows if set(w["pre_state"]) == set(contract.schema))


def replay_table_spec(contract, windows: list[dict]) -> str:
    variables = list(contract.schema)
    start = start_state(contract, windows)
    rows = [
        "[a |-> {}, actor |-> {}, pre |-> {}, post |-> {}]".format(
            to_tla(w["action"]),
            to_tla(w["actor"]),
            _record(w["pre_state"]),
            _record(w["post_state"]),
        )
        for w in windows
    ]
    actors = sorted({w["actor"] for w in windows})
    actions = []
    for name, action in contract.actions.items():
        params = "actor, msg" if action.input else "actor"
        actions.append(f"{name}({params}) == IF cheat THEN Replay({to_tla(name)}, actor) ELSE Idle")
    calls = " \\/ ".join(
        f"{name}(i, 0)" if action.input else f"{name}(i)"
        for name, action in contract.actions.items()
    )
    matches = "\n".join(
        f'  /\\ IF "{v}" \\in DOMAIN T[k].pre THEN {v} = T[k].pre.{v} ELSE TRUE' for v in variables
    )
    moves = "\n".join(
        f'  /\\ {v}\' = IF "{v}" \\in DOMAIN T[k].post THEN T[k].post.{v} ELSE {v}'
        for v in variables
    )
    return (
        "\n".join(
            [
                f"---- MODULE {contract.module} ----",
                "EXTENDS TLC",
                f"VARIABLES {', '.join(variables)}, cheat",
                f"vars == <<{', '.join(variables)}, cheat>>",
                "T == <<" + ",\n  ".join(rows) + ">>",
                "Replay(a, actor) == \\E k \\in DOMAIN T :",
                "  /\\ T[k].a = a /\\ T[k].actor = actor",
                matches,
                moves,
                "  /\\ UNCHANGED cheat",
                "Idle == UNCHANGED vars",
                *actions,
                "Init ==",
                *(f"  /\\ {v} = {to_tla(start[v])}" for v in variables),
                "  /\\ cheat = FALSE",
                f"Next == \\E i \\in {{{', '.join(to_tla(a) for a in actors)}}} : {calls}",
                "Spec == Init /\\ [][Next]_vars",
                "====",
            ]
        )
        + "\n"
    )


def _record(state: dict) -> str:
    if not state:
        return "<<>>"
    return "[" + ", ".join(f"{v} |-> {to_tla(value)}" for v, value in sorted(state.items())) + "]"
