"""Shared inputs for the conformance tests: the spin contract, its real windows, its specs."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from django.conf import settings

from evaluation.inputs.contracts import load_contract
from evaluation.windows import cut_windows


@lru_cache(maxsize=1)
def spin():
    return load_contract("spin")


def spin_windows() -> list[dict]:
    # A fresh list each call: tests edit windows to build partial or broken ones.
    return cut_windows(spin(), settings.SYSMOBENCH_DATA_DIR)


def spin_spec(mutant: str | None = None) -> str:
    base = Path(spin().directory) / "reference"
    path = base / "spin.tla" if mutant is None else base / "mutants" / f"{mutant}.tla"
    return path.read_text()


def verdicts(outcome) -> dict[str, str]:
    return {w.window_id: w.verdict for w in outcome.windows}


def replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"expected exactly one {old!r} in the spec"
    return text.replace(old, new)


def spec_with_hidden_counter(bounded: bool = False) -> str:
    """The reference spec plus a variable the traces never show (`held`: how many times the lock
    was taken, or with `bounded` 1 while it is held), in which no thread ever waits in lock()
    (no StartLock) and a lock is always taken as lock(): a window where some thread is
    acquiring shows a state the spec never reaches. Counting, the spec's behaviour has no end,
    so no exploration of all of it can prove that; bounded, it is a few states."""
    spec = replace_once(
        spin_spec(), "VARIABLES lockState, pc, callType", "VARIABLES lockState, pc, callType, held"
    )
    if not bounded:
        spec = replace_once(spec, "EXTENDS TLC", "EXTENDS TLC, Naturals")
    spec = replace_once(
        spec, "vars == <<lockState, pc, callType>>", "vars == <<lockState, pc, callType, held>>"
    )
    spec = replace_once(
        spec,
        '  /\\ lockState = "unlocked"\n  /\\ pc = [t',
        '  /\\ lockState = "unlocked"\n  /\\ held = 0\n  /\\ pc = [t',
    )
    spec = replace_once(
        spec,
        '  /\\ pc\' = [pc EXCEPT ![t] = "acquiring"]\n',
        '  /\\ pc\' = [pc EXCEPT ![t] = "acquiring"]\n  /\\ UNCHANGED held\n',
    )
    taken = "1" if bounded else "held + 1"
    spec = replace_once(
        spec,
        '  /\\ lockState\' = "locked"\n',
        f"  /\\ lockState' = \"locked\"\n  /\\ held' = {taken}\n",
    )
    spec = replace_once(
        spec,
        '  /\\ lockState\' = "unlocked"\n',
        '  /\\ lockState\' = "unlocked"\n'
        + ("  /\\ held' = 0\n" if bounded else "  /\\ UNCHANGED held\n"),
    )
    spec = replace_once(
        spec,
        '       ELSE \\E c \\in {"lock", "try_lock"} : callType\' = [callType EXCEPT ![t] = c]',
        '       ELSE callType\' = [callType EXCEPT ![t] = "lock"]',
    )
    return replace_once(
        spec,
        "Next == \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)",
        "Next == \\E t \\in Threads : AcquireLock(t) \\/ ReleaseLock(t)",
    )


def _acquiring(window: dict) -> bool:
    return "acquiring" in window["pre_state"]["pc"].values()


def hidden_counter_windows() -> list[dict]:
    """Six windows of each action: AcquireLock ones the spec reaches (no thread acquiring, the
    actor idle) and ReleaseLock ones it never reaches (another thread acquiring)."""
    w = spin_windows()
    return [x for x in w if x["action"] == "AcquireLock" and not _acquiring(x)][:6] + [
        x for x in w if x["action"] == "ReleaseLock" and _acquiring(x)
    ][:6]
