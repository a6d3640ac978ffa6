"""Symmetry probes: each trace again with its actor ids permuted, where the contract says the
system treats those actors alike (`traces.symmetric_actors`, e.g. spin's threads).

A spec that memorised which thread did what in the public traces (a lookup table, or a `Next`
where only thread "0" acts) accepts the recorded windows and refuses the same steps taken by
another thread; the system does not care which thread it is. So P3 checks, beside each window,
its copy under a rotation of the ids (one rotation per trace, chosen from the trace id so the
probes are the same on every scoring), and the copies count like the originals. An id is
rewritten wherever it stands: the window's actor, its input, any key and any string value of
the states equal to it; a contract declares symmetric only ids that mean nothing else there.
"""

from __future__ import annotations

import hashlib
from typing import Any, cast

from evaluation.inputs.contracts import Contract
from evaluation.windows.window import Window

SUFFIX = "~sym"


def rotation(ids: tuple[str, ...], trace_id: str) -> dict[str, str]:
    """A non-identity rotation of `ids`, chosen by the trace id."""
    shift = 1 + int(hashlib.sha256(trace_id.encode()).hexdigest(), 16) % (len(ids) - 1)
    return {a: ids[(i + shift) % len(ids)] for i, a in enumerate(ids)}


def permute(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, list):
        return [permute(v, mapping) for v in value]
    if isinstance(value, dict):
        return {mapping.get(k, k): permute(v, mapping) for k, v in value.items()}
    return value


def probe(window: Window, mapping: dict[str, str]) -> Window:
    out = cast(dict[str, Any], dict(window))
    for key in ("actor", "input", "pre_state", "post_state"):
        if key in out:
            out[key] = permute(out[key], mapping)
    out["window_id"] = f"{window['window_id']}{SUFFIX}"
    out["trace_id"] = f"{window['trace_id']}{SUFFIX}"
    return cast(Window, out)


def probes(contract: Contract, windows: list[Window]) -> list[Window]:
    ids = contract.traces.symmetric_actors if contract.traces is not None else ()
    if len(ids) < 2:
        return []
    return [probe(w, rotation(ids, str(w["trace_id"]))) for w in windows]


def with_probes(contract: Contract, windows: list[Window]) -> list[Window]:
    """The windows followed by their probes (the windows alone when the contract declares no
    symmetric actors)."""
    return windows + probes(contract, windows)
