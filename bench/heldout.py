"""Public vs held-out P3 for every reference and corpus spec
(docs/decisions/0012-held-out-traces.md), and the overall each now scores: the noise between two
halves of one system's traces, which sets the flag's margin (`evaluation/phases/heldout.py` MARGIN).

    .venv/bin/python bench/heldout.py [references|corpus|all] [--p3-only]

`--p3-only` runs P3 alone (both checks, the official outcome `pipeline.official_conformance`
builds), without P1, P2 and P4: the noise table at a fraction of the cost.

The held-out set is a split of the public traces: the windows of every other trace (by trace
id, sorted); the public set is every window. One JSON line per spec on stdout.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluation.inputs.contracts import Adapter, load_contract, parse_adapter  # noqa: E402
from evaluation.pipeline import complete_adapter, official_conformance, score_spec  # noqa: E402
from evaluation.tla.parsed import parse_spec  # noqa: E402
from evaluation.windows import cut_windows  # noqa: E402
from tests.fidelity.corpus import CORPUS, DATA_DIR  # noqa: E402

TASKS = [
    "spin",
    "mutex",
    "rwmutex",
    "ringbuffer",
    "dqueue",
    "locksvc",
    "raftkvs",
    "etcd",
    "redisraft",
    "zookeeper",
]


def split(windows: list) -> list:
    traces = sorted({str(w["trace_id"]) for w in windows})
    kept = set(traces[1::2]) if len(traces) > 1 else set(traces)
    return [w for w in windows if str(w["trace_id"]) in kept]


P3_ONLY = "--p3-only" in sys.argv


def measure(label: str, task: str, spec: str, adapter: Adapter | None, cfg: str | None) -> None:
    contract = load_contract(task)
    windows = cut_windows(contract, DATA_DIR)
    started = time.monotonic()
    if P3_ONLY:
        parsed = parse_spec(spec)
        full = complete_adapter(adapter or Adapter.identity_for(contract), contract, parsed, cfg)
        p3 = official_conformance(parsed, contract, windows, split(windows), full).details
        public, held = p3.get("public") or {}, p3.get("heldout") or {}
        row = {"spec": label, "p3_public": public.get("score"), "p3_heldout": held.get("score")}
        row |= {"rate_public": public.get("pooled_rate"), "rate_heldout": held.get("pooled_rate")}
        row |= {"gap": (p3.get("fits_public") or {}).get("gap")}
        row |= {"error": str(p3.get("error", ""))[:120]}
        print(json.dumps(row | {"seconds": round(time.monotonic() - started, 1)}), flush=True)
        return
    report = score_spec(
        spec, contract, windows, adapter, cfg_text=cfg, heldout_windows=split(windows)
    )
    p3 = report.outcomes["conformance"].details
    public, held = p3.get("public") or {}, p3.get("heldout") or {}
    credit = report.outcomes["invariant"].details.get("credit", {})
    print(
        json.dumps(
            {
                "spec": label,
                "overall": round(report.overall or 0, 4),
                "p3_public": public.get("score"),
                "p3_heldout": held.get("score"),
                "rate_public": public.get("pooled_rate"),
                "rate_heldout": held.get("pooled_rate"),
                "gap": (p3.get("fits_public") or {}).get("gap"),
                "flagged": (p3.get("fits_public") or {}).get("flagged"),
                "p4": report.outcomes["invariant"].score,
                "idle": credit.get("idle_actors"),
                "withheld": (credit.get("withheld") or "")[:80],
                "seconds": round(time.monotonic() - started, 1),
            }
        ),
        flush=True,
    )


def main(which: str) -> None:
    if which in ("references", "all"):
        for task in TASKS:
            contract = load_contract(task)
            spec = (contract.directory / "reference" / f"{contract.module}.tla").read_text()
            measure(f"{task} reference", task, spec, None, None)
    if which in ("corpus", "all"):
        for entry in CORPUS:
            if not load_contract(entry.task).has_traces:
                continue
            contract = load_contract(entry.task)
            adapter = parse_adapter(entry.adapter_text(), contract, file=str(entry.adapter_path))
            measure(
                entry.name,
                entry.task,
                entry.spec_path.read_text(),
                adapter,
                entry.cfg_path.read_text(),
            )


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(args[0] if args else "all")
