"""Values read back from TLC output, written as TLA+ text again (explored states become
candidate pre-states of the wrapper; refusals quote the values they compare)."""

from __future__ import annotations

from typing import Any

from evaluation.tla.tlcvalue import ModelValue, TlaSet
from evaluation.tla.values import to_tla


def tla_text(value: Any) -> str:
    """TLA+ text for a value read back from TLC output."""
    if isinstance(value, ModelValue):
        return value.name
    if isinstance(value, TlaSet):
        return "{" + ", ".join(sorted(tla_text(v) for v in value.items)) + "}"
    if isinstance(value, tuple):
        return "<<" + ", ".join(tla_text(v) for v in value) + ">>"
    if isinstance(value, dict):
        if not value:
            return "<<>>"
        pairs = [f"{tla_text(k)} :> {tla_text(v)}" for k, v in value.items()]
        return "(" + " @@ ".join(pairs) + ")"
    return to_tla(value)
