"""Held-out sets made inside a test, and the lookup-table attack
(docs/decisions/0012-held-out-traces.md).

Nothing here is a held-out set of the project: the folders are written under the test's own
temporary directory and removed with it (held-out traces are never committed).

- `simulate_spin`: a spinlock of three threads run by a seeded random scheduler, written in the
  layout and format of SysMoBench's spin windows (`windows/spin/action_windows.jsonl`): traces of
  the same system as the public ones, with steps the public traces never took.
- `split_folder`: a held-out folder holding some of a task's public trace files (a split).
- `lookup_table_spec`: a spec whose target actions accept exactly the recorded (actor, input,
  pre-state, post-state) rows of some windows, and whose Init is the set of states the traces
  start in; no flag, no adapter trick.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

from evaluation.tla.values import to_tla
from evaluation.windows import stored, trace_files
from evaluation.windows.symmetry import permute

THREADS = ("0", "1", "2")


def simulate_spin(seed: int, traces: int = 6, steps: int = 40) -> list[dict]:
    rng = random.Random(seed)
    out: list[dict] = []
    for n in range(traces):
        lock, pc = "unlocked", dict.fromkeys(THREADS, "idle")
        for seq in range(steps):
            moves = []
            for t in THREADS:
                if pc[t] == "idle":
                    moves.append(("TryAcquireBlocking", t, lock, "acquiring"))
                if pc[t] in ("idle", "acquiring") and lock == "unlocked":
                    moves.append(("AcquireSuccess", t, "locked", "locked"))
                if pc[t] == "locked":
                    moves.append(("Release", t, "unlocked", "idle"))
            event, t, new_lock, new_pc = rng.choice(moves)
            pre = {"lockState": lock, "pc": dict(pc)}
            lock, pc[t] = new_lock, new_pc
            out.append(
                {
                    "window_id": f"held-{seed}-{n}-{seq}",
                    "trace_id": f"held_{seed}_{n}",
                    "seq": seq,
                    "action": event,
                    "actor": t,
                    "pre_state": pre,
                    "post_state": {"lockState": lock, "pc": dict(pc)},
                }
            )
    return out


def write_spin_folder(folder: Path, windows: list[dict]) -> Path:
    path = folder / "windows" / "spin" / "action_windows.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(w) + "\n" for w in windows), encoding="utf-8")
    return folder


def split_folder(contract, data_dir: Path, folder: Path, every: int = 2) -> Path:
    """Every `every`-th trace file of the task (by name) copied to `folder`, same layout."""
    for path in trace_files(contract, data_dir)[::every]:
        base = data_dir if contract.traces.source == "data" else Path(__file__).parents[1]
        target = folder / path.relative_to(base)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(stored.read_bytes(path))  # the plain bytes of a `.gz`-stored trace
    return folder


def with_permutations(windows: list[dict], ids: tuple[str, ...]) -> list[dict]:
    """The windows under every permutation of `ids` (an attacker who knows the probes)."""
    out = []
    for perm in itertools.permutations(ids):
        mapping = dict(zip(ids, perm, strict=True))
        out += [
            {**w, **{k: permute(w[k], mapping) for k in ("actor", "pre_state", "post_state")}}
            for w in windows
        ]
    return out


def lookup_table_spec(contract, windows: list[dict], hidden: dict[str, object]) -> str:
    """The table spec (see the module doc); `hidden`: the values of the schema variables the
    windows never show (kept as Init sets them)."""
    variables = list(contract.schema)
    rows = sorted(
        {
            "[a |-> {}, actor |-> {}, pre |-> {}, post |-> {}]".format(
                to_tla(w["action"]),
                to_tla(w["actor"]),
                _record(w["pre_state"]),
                _record(w["post_state"]),
            )
            for w in windows
        }
    )
    firsts: dict[str, dict] = {}
    for w in windows:
        if set(w["pre_state"]) >= set(variables) - set(hidden):
            firsts.setdefault(w["trace_id"], w["pre_state"])
    starts = sorted({_record({**s, **hidden}) for s in firsts.values()})
    actors = sorted({w["actor"] for w in windows})
    actions = []
    for name, action in contract.actions.items():
        params = "actor, msg" if action.input else "actor"
        actions.append(f"{name}({params}) == Row({to_tla(name)}, actor)")
    calls = " \\/ ".join(
        f"{name}(i, 0)" if action.input else f"{name}(i)"
        for name, action in contract.actions.items()
    )
    shown = [v for v in variables if v not in hidden]
    return (
        "\n".join(
            [
                f"---- MODULE {contract.module} ----",
                "EXTENDS TLC",
                *([f"CONSTANTS {', '.join(contract.constants)}"] if contract.constants else []),
                f"VARIABLES {', '.join(variables)}",
                f"vars == <<{', '.join(variables)}>>",
                "T == {" + ",\n  ".join(rows) + "}",
                "Starts == {" + ",\n  ".join(starts) + "}",
                "Row(a, actor) == \\E tr \\in T :",
                "  /\\ tr.a = a /\\ tr.actor = actor",
                *(
                    f'  /\\ IF "{v}" \\in DOMAIN tr.pre THEN {v} = tr.pre.{v} ELSE TRUE'
                    for v in shown
                ),
                *(
                    f'  /\\ {v}\' = IF "{v}" \\in DOMAIN tr.post THEN tr.post.{v} ELSE {v}'
                    for v in shown
                ),
                *(f"  /\\ UNCHANGED {v}" for v in hidden),
                *actions,
                "Init == \\E st \\in Starts : " + " /\\ ".join(f"{v} = st.{v}" for v in variables),
                f"Next == \\E i \\in {{{', '.join(to_tla(a) for a in actors)}}} : {calls}",
                "Spec == Init /\\ [][Next]_vars",
                "====",
            ]
        )
        + "\n"
    )


def _record(state: dict) -> str:
    return "[" + ", ".join(f"{v} |-> {to_tla(value)}" for v, value in sorted(state.items())) + "]"
