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


def spec_with_hidden_counter() -> str:
    """The reference spec plus a variable the traces never show, whose TypeOK admits no value
    while the lock is held: a locked window has no pre-state under the TypeOK rule."""
    spec = replace_once(
        spin_spec(), "VARIABLES lockState, pc, callType", "VARIABLES lockState, pc, callType, held"
    )
    spec = replace_once(
        spec, "vars == <<lockState, pc, callType>>", "vars == <<lockState, pc, callType, held>>"
    )
    spec = replace_once(
        spec,
        '  /\\ lockState \\in {"unlocked", "locked"}\n',
        '  /\\ lockState \\in {"unlocked", "locked"}\n  /\\ held \\in {0}\n'
        '  /\\ lockState = "locked" => held = 1\n',
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
    spec = replace_once(
        spec, '  /\\ lockState\' = "locked"\n', "  /\\ lockState' = \"locked\"\n  /\\ held' = 1\n"
    )
    spec = replace_once(
        spec,
        '  /\\ lockState\' = "unlocked"\n',
        "  /\\ lockState' = \"unlocked\"\n  /\\ held' = 0\n",
    )
    return spec


def hidden_counter_windows() -> list[dict]:
    """Six windows of each action, enough to show both verdicts of the hidden-counter spec."""
    w = spin_windows()
    return [x for x in w if x["action"] == "AcquireLock"][:6] + [
        x for x in w if x["action"] == "ReleaseLock"
    ][:6]
