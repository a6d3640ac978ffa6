"""Run the election scenarios on a real ensemble and write one NDJSON trace per run.

    python -m harnesses.zookeeper.make_traces --out harnesses/zookeeper/traces --runs 3 --seed 13

Run r of scenario S uses `random.Random(f"{seed}:{S}:{r}")`, so the scenario choices (start
order and gaps, which node dies) are fixed by the seed; what the real nodes then do is not.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harnesses.zookeeper import logparse
from harnesses.zookeeper.ensemble import Ensemble
from harnesses.zookeeper.scenarios import SCENARIOS


def run_one(scenario: str, rng: random.Random, workdir: Path, subnet: int) -> Path:
    ens = Ensemble(workdir, subnet=subnet)
    try:
        SCENARIOS[scenario](ens, rng)
    finally:
        ens.stop_all()
    return ens.log


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3, help="runs per scenario")
    parser.add_argument("--seed", default="13")
    parser.add_argument("--scenarios", nargs="*", default=list(SCENARIOS))
    parser.add_argument("--subnet", type=int, default=77, help="nodes listen on 127.0.<subnet>.x")
    parser.add_argument("--keep-logs", type=Path, help="also copy the raw logs here")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("*.ndjson"):
        old.unlink()
    written = []
    for scenario in args.scenarios:
        for run in range(1, args.runs + 1):
            rng = random.Random(f"{args.seed}:{scenario}:{run}")
            name = f"{scenario}-{run}"
            with tempfile.TemporaryDirectory(prefix="zkh-") as tmp:
                log = run_one(scenario, rng, Path(tmp), args.subnet)
                if args.keep_logs:
                    args.keep_logs.mkdir(parents=True, exist_ok=True)
                    shutil.copy(log, args.keep_logs / f"{name}.log")
                events = logparse.parse(log.read_text(errors="replace").splitlines(), name)
            path = args.out / f"{name}.ndjson"
            path.write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in events))
            written.append(path)
            print(f"{path}: {len(events)} events", file=sys.stderr)
    manifest = {
        "command": "python -m harnesses.zookeeper.make_traces " + " ".join(argv or sys.argv[1:]),
        "seed": args.seed,
        "runs_per_scenario": args.runs,
        "scenarios": args.scenarios,
        "zookeeper": _package_version("zookeeper"),
        "java": _java_version(),
        "files": {p.name: sum(1 for _ in p.open()) for p in written},
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return 0


def _package_version(name: str) -> str:
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", name], capture_output=True, text=True, check=False
    )
    return out.stdout.strip() or "unknown"


def _java_version() -> str:
    out = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    return (out.stderr.splitlines() or ["unknown"])[0]


if __name__ == "__main__":
    sys.exit(main())
