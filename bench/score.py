"""Full four-phase scoring wall time of the reference specs (spin, etcd).

    .venv/bin/python bench/score.py [--tasks spin etcd] [--repeat 1] [--data DIR]
    .venv/bin/python bench/score.py --overhead [--tasks spin] [--repeat 2]

For each task: cut the windows from the benchmark data (not timed; the job reads them from the
database), then time `score_spec` on `tasks_data/<task>/reference/<module>.tla` exactly as the
rq job runs it: P1 SANY, P2 TLC, P3 the batched window checks, P4 the invariants. Prints each
phase's time and score, the total wall time (median over --repeat), and the goal on 2 cores
(spin <= 20 s, etcd <= 5 min). A task whose contract or reference spec is missing is reported
as missing. Django-free.

--overhead measures what each run pays outside its phases (total minus the phases' durations)
as a forked rq work-horse sees it: every run starts with empty per-process caches. "before"
also removes the persisted tool-version record (so the probes run per run, as they did);
"after" keeps it. Prints both medians and their ratio (the probes run at the first JVM a run
starts, so they show in P1), then the tool-version cost alone per work-horse; the goal for the
time outside the phases is <= 0.2 s.
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


def _fresh_work_horse(keep_record: bool) -> None:
    """Empty the per-process caches a forked work-horse starts without."""
    from evaluation.tla import tools

    if not keep_record:
        path = tools._versions_record_path()
        if path is not None:
            path.unlink(missing_ok=True)
    for cached in (tools.tool_versions, tools.probed_versions, tools.java_version, tools.jar_path):
        cached.cache_clear()


def bench_overhead(slug: str, data_dir: Path, repeat: int) -> None:
    from evaluation.inputs.contracts import load_contract
    from evaluation.pipeline import score_spec
    from evaluation.tla.tools import fingerprint as tools_fingerprint
    from evaluation.windows import cut_windows

    contract = load_contract(slug)
    spec = (ROOT / "tasks_data" / slug / "reference" / f"{contract.module}.tla").read_text()
    windows = cut_windows(contract, data_dir) if contract.has_traces else []
    medians: dict[str, dict[str, float]] = {}
    for mode, keep in (("before", False), ("after", True)):
        seen: dict[str, list[float]] = {"outside": [], "P1": [], "total": []}
        for _ in range(repeat):
            _fresh_work_horse(keep)
            phases: list = []
            started = time.monotonic()
            score_spec(spec, contract, windows, on_phase=phases.append)
            total = time.monotonic() - started
            seen["outside"].append(total - sum(o.duration_seconds for o in phases))
            seen["P1"].append(next(o.duration_seconds for o in phases if o.phase == "syntax"))
            seen["total"].append(total)
        medians[mode] = {k: statistics.median(v) for k, v in seen.items()}
        shown = "  ".join(f"{k} {v:.3f} s" for k, v in medians[mode].items())
        print(f"{slug} {mode} (median of {repeat}): {shown}")
    # The first JVM a run starts (P1's) asks the versions, so a probe shows in P1 as well.
    for key in ("outside", "P1", "total"):
        before, after = medians["before"][key], medians["after"][key]
        ratio = f"{before / after:.2f}x" if after > 0 else "inf"
        print(f"{slug} {key}: before {before:.3f} s, after {after:.3f} s, before/after {ratio}")
    probe = {}
    for mode, keep in (("before", False), ("after", True)):
        _fresh_work_horse(keep)
        started = time.monotonic()
        tools_fingerprint()
        probe[mode] = time.monotonic() - started
    ratio = probe["before"] / probe["after"] if probe["after"] > 0 else float("inf")
    print(
        f"tool versions per work-horse: before {probe['before']:.3f} s, "
        f"after {probe['after']:.3f} s, before/after {ratio:.0f}x"
    )
    fixed = medians["after"]["outside"]
    verdict = "met" if fixed <= 0.2 else "MISSED"
    print(f"{slug}: outside the phases {fixed:.3f} s; goal <= 0.2 s: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=["spin", "etcd"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--overhead", action="store_true", help="time outside the phases")
    default_data = os.environ.get("SYSMOBENCH_DATA_DIR", ROOT.parent / "shared" / "sysmobench")
    parser.add_argument("--data", type=Path, default=Path(default_data))
    args = parser.parse_args()
    for slug in args.tasks:
        if args.overhead:
            bench_overhead(slug, args.data, max(1, args.repeat))
        else:
            bench_task(slug, args.data, max(1, args.repeat))


if __name__ == "__main__":
    main()
