"""Shared inputs for the conformance tests: the spin contract, its real windows, its specs."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from django.conf import settings

from evaluation.contracts import load_contract
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
