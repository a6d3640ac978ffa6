"""How long the two D1 specs (docs/decisions/0004-work-bounds-not-time.md) take to their
verdict, against the work bound's time.

    .venv/bin/python bench/work_bounds.py [--cpu-bound SECONDS] [--only init|print]

The specs are the ones tests/work_bound_support.py builds: a cfg whose INIT
enumerates 2×10⁹ states (bounded by the states TLC generates, `runtime.MAX_GENERATED`) and
`ASSUME PrintT(Big)` over 12,000 strings of 3,900 characters (bounded by TLC's own CPU seconds,
`runtime.WORK_CPU_SECONDS`, 150 by default; `--cpu-bound` sets another). Each is checked by P2
alone with the contract's own safety net (300 s). Printed per spec: the outcome (a verdict, or
"could not be scored" when the net came first, which is the machine's failure), the wall
seconds, the JVM's CPU seconds where known, and the wall time against the work bound's time:
for the CPU bound that is the bound itself; for the states bound, the seconds the same machine
takes to generate that many initial states of a trivial spec (measured first). Before the work
bounds both ran into the net and were retried three times: about 15 minutes of worker time each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluation.inputs.contracts import load_contract  # noqa: E402
from evaluation.phases import runtime  # noqa: E402
from evaluation.results import InfrastructureFailure  # noqa: E402
from evaluation.tla import sandbox  # noqa: E402
from tests.work_bound_support import PRINTER, WIDE_CFG, WIDE_INIT, with_definitions  # noqa: E402

BASELINE = (
    "---- MODULE Base ----\nEXTENDS Naturals\nVARIABLE x\nInit == x \\in 1..{n}\nNext == x' = x\n"
    "====\n"
)


def seconds_to_generate(n: int) -> float:
    """Wall seconds for TLC to enumerate n initial states of a trivial spec (JVM start included)."""
    started = time.monotonic()
    run = sandbox.run_tlc(
        {"Base": BASELINE.format(n=n)},
        "Base",
        "INIT Init\nNEXT Next\n",
        ["-deadlock"],
        sandbox.Limits(wall_seconds=600, cpu_seconds=1205),
    )
    assert run.status == "ok", run.note
    return time.monotonic() - started


def check(name: str, spec: str, cfg: str | None) -> tuple[str, float]:
    started = time.monotonic()
    try:
        outcome = runtime.check_runtime(spec, load_contract("spin"), cfg_text=cfg)
    except InfrastructureFailure as failure:
        return f"could not be scored: {failure}", time.monotonic() - started
    bound = outcome.details.get("work_bound")
    said = f"{outcome.status} {outcome.score} work_bound={bound}"
    return said, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cpu-bound", type=float, default=runtime.WORK_CPU_SECONDS)
    parser.add_argument("--only", choices=("init", "print"))
    options = parser.parse_args()
    runtime.WORK_CPU_SECONDS = options.cpu_bound
    if options.only != "print":
        bound_time = seconds_to_generate(runtime.MAX_GENERATED)
        said, took = check("init", with_definitions(WIDE_INIT), WIDE_CFG)
        print(f"INIT of 2e9 states: {said}")
        print(f"  {took:.1f} s; {runtime.MAX_GENERATED:,} initial states take {bound_time:.1f} s"
              f" here: {took / bound_time:.2f}x the work bound's time")  # fmt: skip
    if options.only != "init":
        said, took = check("print", with_definitions(PRINTER), None)
        print(f"ASSUME PrintT(Big): {said}")
        print(f"  {took:.1f} s against a bound of {options.cpu_bound:g} CPU s: "
              f"{took / options.cpu_bound:.2f}x the work bound's time")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
