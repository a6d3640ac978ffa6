"""P1+P2 wall time for a few spec sizes (median of several runs) and the JVM flag effect.

.venv/bin/python bench/p1p2.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluation.phases.runtime import check_runtime  # noqa: E402
from evaluation.phases.syntax import check_syntax  # noqa: E402
from evaluation.tla import sandbox  # noqa: E402


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


CONTRACT = {
    "module": "bench",
    "deadlock": "allowed",
    "budgets": {"runtime": {"depth": 10, "max_states": 2000}},
}


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
    runs = parser.parse_args().runs
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
    trivial = spec(1)
    cfg = "INIT Init\nNEXT Next\n"
    print("JVM flag effect, trivial spec (median of", runs, "runs):")
    for label, flags in (
        ("default JVM", []),
        ("our flags " + " ".join(sandbox.JVM_FLAGS), list(sandbox.JVM_FLAGS)),
    ):
        sandbox.JVM_FLAGS[:] = flags
        sany = median_time(lambda: sandbox.run_sany({"bench": trivial}, "bench"), runs)
        tlc = median_time(
            lambda: sandbox.run_tlc({"bench": trivial}, "bench", cfg, ["-deadlock"]), runs
        )
        print(f"  {label}: SANY {sany:.3f} s, TLC {tlc:.3f} s")


if __name__ == "__main__":
    main()
