"""The PGo reference specs (dqueue, locksvc, raftkvs) satisfy their contracts, and each
deliberately wrong variant is caught.

Window acceptance is checked with a small TLC harness of our own (one TLC run per spec over all
of a task's windows, the window chosen in Init): the conformance phase is tested elsewhere; this
pins the fixtures. Windows are partial, so the harness fills the keys a window does not show with
the spec's initial values; a step of a faithful spec reads only keys its window shows.
"""

from pathlib import Path

import pytest
from django.conf import settings

from evaluation.contracts import load_contract
from evaluation.tla.sandbox import Limits, run_sany, run_tlc
from evaluation.tla.values import to_tla
from evaluation.windows import cut_windows

pytestmark = pytest.mark.tla

TASKS = Path(__file__).resolve().parent.parent / "tasks_data"
LIMITS = Limits(wall_seconds=180, cpu_seconds=360, heap_mb=768)

# The reference specs' initial values, used for keys a window leaves out (and for the
# auxiliary variables outside the schema).
INITIAL = {
    "dqueue": {
        "pc": '[n \\in Nodes |-> IF n = PRODUCER THEN "p" ELSE "c"]',
        "network": "[n \\in Nodes |-> <<>>]",
        "requester": '[n \\in {PRODUCER} |-> "None"]',
        "s": "[n \\in {PRODUCER} |-> 1]",
    },
    "locksvc": {
        "pc": '[n \\in Nodes |-> IF n = ServerID THEN "serverLoop" ELSE "acquireLock"]',
        "network": "[n \\in Nodes |-> <<>>]",
        "msg": "[n \\in {ServerID} |-> NoMsg]",
        "q": "[n \\in {ServerID} |-> <<>>]",
        "hasLock": "[c \\in Clients |-> FALSE]",
    },
    "raftkvs": {
        "state": '[i \\in Servers |-> "follower"]',
        "currentTerm": "[i \\in Servers |-> 1]",
        "votedFor": '[i \\in Servers |-> "None"]',
        "leader": '[i \\in Servers |-> "None"]',
        "log": "[i \\in Servers |-> <<>>]",
        "commitIndex": "[i \\in Servers |-> 0]",
        "sm": "[i \\in Servers |-> EmptySM]",
        "network": "[n \\in Nodes |-> <<>>]",
        "pc": '[c \\in Clients |-> "clientLoop"]',
        "clientLeader": '[c \\in Clients |-> "None"]',
        "req": "[c \\in Clients |-> NoReq]",
        "reqIdx": "[c \\in Clients |-> 0]",
        "smDomain": "[i \\in Servers |-> {}]",
        "plog": "[i \\in Servers |-> <<>>]",
        "nodeEnabled": "[i \\in Servers |-> TRUE]",
        "votesGranted": "[i \\in Servers |-> {}]",
        "matchIndex": "[i \\in Servers |-> [j \\in Servers |-> 0]]",
        "newCommitIndex": "[i \\in Servers |-> 0]",
    },
}


def _cfg(contract, body: str) -> str:
    constants = "".join(f"  {k} = {v}\n" for k, v in contract.constants.items())
    return f"CONSTANTS\n{constants}{body}"


def _record(w: dict) -> str:
    message = to_tla(w["input"]) if "input" in w else '"none"'
    return (
        f'[act |-> "{w["action"]}", actor |-> "{w["actor"]}", msg |-> {message}, '
        f"pre |-> {to_tla(w['pre_state'])}, post |-> {to_tla(w['post_state'])}]"
    )


def _fill(var: str, init: str) -> str:
    return (
        f'  /\\ {var} = LET p == W[hIdx].pre IN IF "{var}" \\in DOMAIN p\n'
        f'       THEN [k \\in DOMAIN ({init}) \\cup DOMAIN p["{var}"] |->\n'
        f'               IF k \\in DOMAIN p["{var}"] THEN p["{var}"][k] ELSE ({init})[k]]\n'
        f"       ELSE {init}\n"
    )


def _post(var: str) -> str:
    return (
        f'  /\\ ("{var}" \\in DOMAIN W[hIdx].post =>\n'
        f'        \\A k \\in DOMAIN W[hIdx].post["{var}"] :\n'
        f'          {var}\'[k] = W[hIdx].post["{var}"][k])\n'
    )


def _call(contract, name: str) -> str:
    action = contract.actions[name]
    return f"{name}(W[hIdx].actor, W[hIdx].msg)" if action.input else f"{name}(W[hIdx].actor)"


def accepted_windows(contract, spec_text: str, windows: list[dict]) -> set[int]:
    """Indexes (1-based) of windows whose post-state the spec's target action can reach."""
    initial = INITIAL[contract.slug]
    records = ",\n  ".join(_record(w) for w in windows)
    cases = "\n  [] ".join(f'W[hIdx].act = "{a}" -> {_call(contract, a)}' for a in contract.actions)
    harness = (
        f"---- MODULE PgoWindows ----\nEXTENDS {contract.module}, TLC, Sequences, Naturals\n"
        f"VARIABLES hIdx, hStepped\nW == <<\n  {records}\n>>\n"
        "HInit ==\n  /\\ hIdx \\in 1..Len(W)\n  /\\ hStepped = FALSE\n"
        + "".join(_fill(v, e) for v, e in initial.items())
        + f"Target == CASE {cases}\n"
        "PostOk ==\n  /\\ TRUE\n"
        + "".join(_post(v) for v in initial)
        + "HNext ==\n  /\\ hStepped = FALSE\n  /\\ Target\n  /\\ hStepped' = TRUE\n"
        '  /\\ UNCHANGED hIdx\n  /\\ (PostOk => PrintT(<<"HIT", hIdx>>))\n====\n'
    )
    run = run_tlc(
        {contract.module: spec_text, "PgoWindows": harness},
        "PgoWindows",
        _cfg(contract, "INIT HInit\nNEXT HNext\n"),
        ["-deadlock"],
        LIMITS,
    )
    assert run.status == "ok", run.output[-3000:]
    return {
        int(line.split(",")[1].strip(" >"))
        for line in run.output.splitlines()
        if line.startswith('<<"HIT", ')
    }


def check_invariant(contract, spec_text: str, inv):
    """One contract invariant under the spec's own Spec and the pinned constants."""
    head, _, _ = spec_text.rstrip().rpartition("\n====")
    body = "\n\n".join(i.definition for i in contract.invariants)
    module = f"{head}\n\n{body}\n====\n"
    line = f"{'INVARIANT' if _is_state_predicate(inv) else 'PROPERTY'} {inv.name}\n"
    return run_tlc(
        {contract.module: module},
        contract.module,
        _cfg(contract, "SPECIFICATION Spec\n" + line),
        ["-deadlock"],
        LIMITS,
    )


def _is_state_predicate(inv) -> bool:
    return inv.kind == "safety" and "[]" not in inv.definition


def _read(slug: str, name: str) -> str:
    return (TASKS / slug / "reference" / name).read_text()


@pytest.fixture(scope="module", params=["dqueue", "locksvc", "raftkvs"])
def task(request):
    contract = load_contract(request.param)
    return contract, cut_windows(contract, settings.SYSMOBENCH_DATA_DIR)


def _rejected(contract, windows, name: str) -> dict[str, int]:
    hits = accepted_windows(contract, _read(contract.slug, name), windows)
    rejected: dict[str, int] = {}
    for index, w in enumerate(windows, start=1):
        if index not in hits:
            rejected[w["action"]] = rejected.get(w["action"], 0) + 1
    return rejected


def _counts(windows) -> dict[str, int]:
    counts: dict[str, int] = {}
    for w in windows:
        counts[w["action"]] = counts.get(w["action"], 0) + 1
    return counts


def test_sany_accepts_reference_and_mutants(task):
    contract, _ = task
    names = [f"{contract.module}.tla"] + [
        f"mutants/{p.name}"
        for p in sorted((TASKS / contract.slug / "reference" / "mutants").glob("*.tla"))
    ]
    assert len(names) >= 4
    for name in names:
        run = run_sany({contract.module: _read(contract.slug, name)}, contract.module)
        assert run.status == "ok", f"{name}: {run.output[-2000:]}"


def test_reference_spec_accepts_every_window(task):
    contract, windows = task
    assert accepted_windows(
        contract, _read(contract.slug, f"{contract.module}.tla"), windows
    ) == set(range(1, len(windows) + 1))


def test_contract_invariants_hold_on_the_reference_spec(task):
    contract, _ = task
    spec = _read(contract.slug, f"{contract.module}.tla")
    failed = {}
    for inv in contract.invariants:
        run = check_invariant(contract, spec, inv)
        if run.status != "ok":
            failed[inv.name] = run.output[-1500:]
    assert failed == {}


# What each mutant must fail: the windows of these actions, all of them.
MUTANT_FAILS = {
    "dqueue": {
        "flipped_guard": {"Produce": "all"},
        "wrong_post_state": {"Request": "all"},
        "merged_steps": {"Request": "all"},
    },
    "locksvc": {
        "flipped_guard": {"ServerGrantLock": "lock-grants"},
        "wrong_post_state": {"ClientCriticalSection": "all"},
        "merged_steps": {"ServerGrantLock": "all"},
    },
    "raftkvs": {
        "flipped_guard": {"ElectionTimeout": "all"},
        "wrong_post_state": {"ClientRequest": "all"},
        "merged_steps": {"ClientRequest": "all"},
    },
}


def _expected(windows, spec: dict[str, str]) -> dict[str, int]:
    counts = _counts(windows)
    expected = {}
    for action, which in spec.items():
        if which == "all":
            expected[action] = counts[action]
        else:  # grants answering a LockMsg (the queue was empty)
            expected[action] = sum(
                1
                for w in windows
                if w["action"] == action and w["pre_state"]["msg"][w["actor"]]["type"] == 1
            )
    return expected


@pytest.mark.parametrize("mutant", ["flipped_guard", "wrong_post_state", "merged_steps"])
def test_mutant_fails_the_windows_it_should(task, mutant):
    contract, windows = task
    expected = _expected(windows, MUTANT_FAILS[contract.slug][mutant])
    assert all(n > 0 for n in expected.values())
    assert _rejected(contract, windows, f"mutants/{mutant}.tla") == expected
