"""Full four-phase scoring wall time of the reference specs (spin, etcd).

    .venv/bin/python bench/score.py [--tasks spin etcd] [--repeat 1] [--data DIR]

For each task: cut the windows from the benchmark data (not timed; the job reads them from the
database), then time `score_spec` on `tasks_data/<task>/reference/<module>.tla` exactly as the
rq job runs it: P1 SANY, P2 TLC, P3 the batched window checks, P4 the invariants. Prints each
phase's time and score, the total wall time (median over --repeat), and the goal on 2 cores
(spin <= 20 s, etcd <= 5 min). A task whose contract or reference spec is missing is reported
as missing. Django-free.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOALS = {"spin": 20.0, "etcd": 300.0}


def bench_task(slug: str, data_dir: Path, repeat: int) -> None:
    from evaluation.inputs.contracts import ContractError, load_contract
    from evaluation.pipeline import score_spec
    from evaluation.windows import cut_windows

    try:
        contract = load_contract(slug)
    except ContractError as exc:
        print(f"{slug}: missing ({exc})")
        return
    spec_path = ROOT / "tasks_data" / slug / "reference" / f"{contract.module}.tla"
    if not spec_path.is_file():
        print(f"{slug}: missing reference spec {spec_path.relative_to(ROOT)}")
        return
    windows = cut_windows(contract, data_dir) if contract.has_traces else []
    spec = spec_path.read_text()
    totals = []
    for attempt in range(1, repeat + 1):
        phases = []
        started = time.monotonic()
        report = score_spec(spec, contract, windows, on_phase=phases.append)
        totals.append(time.monotonic() - started)
        line = ", ".join(
            f"{o.phase} {o.duration_seconds:.1f}s={'-' if o.score is None else f'{o.score:.3f}'}"
            f"({o.status})"
            for o in phases
        )
        print(f"{slug} #{attempt}: {totals[-1]:.1f} s  overall {report.overall:.3f}  [{line}]")
    median = statistics.median(totals)
    goal = GOALS.get(slug)
    verdict = (
        "" if goal is None else f"  goal <= {goal:.0f} s: {'met' if median <= goal else 'MISSED'}"
    )
    print(f"{slug}: {len(windows)} windows, median {median:.1f} s over {repeat} run(s){verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=["spin", "etcd"])
    parser.add_argument("--repeat", type=int, default=1)
    default_data = os.environ.get("SYSMOBENCH_DATA_DIR", ROOT.parent / "shared" / "sysmobench")
    parser.add_argument("--data", type=Path, default=Path(default_data))
    args = parser.parse_args()
    for slug in args.tasks:
        bench_task(slug, args.data, max(1, args.repeat))


if __name__ == "__main__":
    main()
