"""P1+P2 wall time for a few spec sizes (median of several runs); JVM flags and AppCDS effect.

.venv/bin/python bench/p1p2.py [--runs 3] [--jvm-only]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluation.inputs.contracts import make_contract
from evaluation.phases.runtime import check_runtime  # noqa: E402
from evaluation.phases.syntax import check_syntax  # noqa: E402
from evaluation.tla import appcds, sandbox  # noqa: E402


def spec(actions: int) -> str:
    lines = [
        "---- MODULE bench ----",
        "EXTENDS Naturals",
        "VARIABLES x, y",
        "Init == x = 0 /\\ y = 0",
    ]
    for i in range(actions):
        lines.append(f"A{i} == x < {3 + i % 3} /\\ x' = x + 1 /\\ y' = {i}")
    lines.append("Next == " + " \\/ ".join(f"A{i}" for i in range(actions)))
    return "\n".join(lines + ["===="]) + "\n"


CONTRACT = make_contract(module="bench", budgets={"runtime": {"depth": 10, "max_states": 2000}})


def median_time(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.monotonic()
        fn()
        times.append(time.monotonic() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jvm-only", action="store_true", help="only the JVM start-up figures")
    args = parser.parse_args()
    runs = args.runs
    if args.jvm_only:
        return jvm_section(max(runs, 5))
    print("P1+P2 wall time (median of", runs, "runs)")
    for actions in (2, 10, 40):
        text = spec(actions)
        t = median_time(
            lambda text=text: (check_syntax(text, CONTRACT), check_runtime(text, CONTRACT)), runs
        )
        broken = text.replace("A1 == x <", "A1 == x < (", 1)
        tb = median_time(lambda broken=broken: check_syntax(broken, CONTRACT), runs)
        print(
            f"  {actions:3d} actions ({len(text.splitlines())} lines): P1+P2 {t:.2f} s;"
            f" P1 with a parse error (isolation) {tb:.2f} s"
        )
    jvm_section(max(runs, 5))


def jvm_section(runs: int) -> None:
    """JVM start-up on a trivial spec: default JVM, our flags, our flags + AppCDS.

    The three set-ups alternate inside each round, so a shared machine's changing load hits
    them alike; each figure is the median over the rounds."""
    trivial = spec(1)
    cfg = "INIT Init\nNEXT Next\n"
    ours = list(sandbox.JVM_FLAGS)
    archives = [sandbox.appcds_archive(c) for c in ("tla2sany.SANY", "tlc2.TLC")]
    setups = {
        "default JVM, no AppCDS": ([], "off"),
        "our flags " + " ".join(ours) + ", no AppCDS": (ours, "off"),
    }
    if None not in archives:
        setups["our flags + AppCDS"] = (ours, os.environ.get(appcds.ENV_VAR, ""))
    times: dict[str, dict[str, list[tuple[float, float]]]] = {
        k: {"SANY": [], "TLC": []} for k in setups
    }
    saved = os.environ.get(appcds.ENV_VAR)
    try:
        for _ in range(runs):
            for label, (flags, cache) in setups.items():
                sandbox.JVM_FLAGS[:] = flags
                os.environ[appcds.ENV_VAR] = cache
                times[label]["SANY"].append(
                    timed(lambda: sandbox.run_sany({"bench": trivial}, "bench"))
                )
                times[label]["TLC"].append(
                    timed(lambda: sandbox.run_tlc({"bench": trivial}, "bench", cfg, ["-deadlock"]))
                )
    finally:
        sandbox.JVM_FLAGS[:] = ours
        if saved is None:
            os.environ.pop(appcds.ENV_VAR, None)
        else:
            os.environ[appcds.ENV_VAR] = saved
    print(f"JVM start-up, trivial spec, wall (CPU) seconds, median of {runs} rounds:")
    for label, measured in times.items():
        sany, tlc = (
            tuple(statistics.median(x[i] for x in measured[t]) for i in (0, 1))
            for t in ("SANY", "TLC")
        )
        print(f"  {label}: SANY {sany[0]:.3f} ({sany[1]:.3f}), TLC {tlc[0]:.3f} ({tlc[1]:.3f})")
    if None in archives:
        print("  AppCDS: no archive could be made here (see evaluation/tla/appcds.py)")
    for path in filter(None, archives):
        print(f"    archive {path} ({Path(path).stat().st_size / 1e6:.1f} MB)")


def timed(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child processes): CPU time barely moves with the load
    other users put on a shared machine, wall time does."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    run = fn()
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.status != "ok":
        raise SystemExit(f"benchmark run failed: {run.status} {run.note}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


if __name__ == "__main__":
    main()
