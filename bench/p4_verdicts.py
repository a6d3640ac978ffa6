"""P4 verdicts of every reference spec and mutant, one line per spec (to compare scorer versions).

    .venv/bin/python bench/p4_verdicts.py [--tasks spin etcd ...] [--json OUT]

For each task with reference specs (`tasks_data/<task>/reference/<module>.tla` and `mutants/`):
run the invariant phase exactly as the pipeline does and print the score, the phase status, the
seconds taken and one letter per invariant (H holds, V violated, T timeout, E error) in contract
order. `--json` also writes the full verdicts, so two runs (say, before and after a scorer
change) can be diffed. Django-free; CPU-heavy (locksvc alone takes minutes).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LETTER = {"holds": "H", "violated": "V", "error": "E"}


def specs(slug: str, module: str) -> list[tuple[str, Path]]:
    base = ROOT / "tasks_data" / slug / "reference"
    found = [("reference", base / f"{module}.tla")]
    found += [(p.stem, p) for p in sorted((base / "mutants").glob("*.tla"))]
    return [(name, path) for name, path in found if path.is_file()]


def main() -> None:
    from evaluation.inputs.contracts import load_contract
    from evaluation.phases.invariants import check_invariants

    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--tasks", nargs="*", default=["spin", "etcd", "redisraft", "dqueue", "raftkvs", "locksvc"]
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = {}
    for slug in args.tasks:
        contract = load_contract(slug)
        names = [inv.name for inv in contract.invariants]
        print(f"{slug}: {' '.join(names)}", flush=True)
        for name, path in specs(slug, contract.module):
            started = time.monotonic()
            outcome = check_invariants(path.read_text(), contract)
            seconds = time.monotonic() - started
            letters = "".join(LETTER.get(o.verdict, "?") for o in outcome.invariants)
            print(
                f"  {name:18} {outcome.score:.3f} {outcome.status:8} {seconds:7.1f}s {letters}",
                flush=True,
            )
            results[f"{slug}/{name}"] = {
                "score": outcome.score,
                "status": outcome.status,
                "seconds": round(seconds, 1),
                "verdicts": {o.name: o.verdict for o in outcome.invariants},
                "reasons": {o.name: o.reason for o in outcome.invariants if o.verdict != "holds"},
            }
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
