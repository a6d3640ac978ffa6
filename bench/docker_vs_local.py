"""Whole spin scoring through the docker backend against the local backend, in the same run.

    .venv/bin/python bench/docker_vs_local.py [--task spin] [--repeat 5] [--cpus 2]
        [--image sysmobench-scorer:latest]

Each round scores the task's reference spec once with the local backend (`score_spec` in this
process, each SANY/TLC call in its sandbox, as a worker with SCORER_BACKEND=local does) and once
with the docker backend (`score_in_container`: container start, Python start, the four phases,
the report). The two alternate within each round so machine load hits both alike. One warm-up
round is not counted (AppCDS archives, the local process's cached tool banners). Prints each
time, the medians and the ratio docker/local; goal: within 1.3x. Django-free; needs the engine
and the scorer image (bin/build-images).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOAL = 1.3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="spin")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cpus", type=float, default=2.0, help="container CPU limit (0: none)")
    parser.add_argument("--image", default="sysmobench-scorer:latest")
    args = parser.parse_args()

    from evaluation import cli
    from evaluation.backends.container import ContainerSettings, docker_client, score_in_container
    from evaluation.pipeline import score_spec

    contract = cli.load_task(args.task, cli.default_tasks_dir())
    spec = (ROOT / "tasks_data" / args.task / "reference" / f"{contract.module}.tla").read_text()
    windows = cli.cut(contract, cli.default_data_dir()) if contract.has_traces else []
    client = docker_client()
    settings = ContainerSettings(image=args.image, cpus=args.cpus)

    def local():
        return score_spec(spec, contract, windows)

    def docker():
        return score_in_container(spec, contract, windows, settings=settings, client=client)

    times: dict[str, list[float]] = {"local": [], "docker": []}
    outside: dict[str, list[float]] = {"local": [], "docker": []}
    for round_no in range(args.repeat + 1):
        order = [("local", local), ("docker", docker)]
        if round_no % 2:
            order.reverse()
        for name, score in order:
            started = time.monotonic()
            report = score()
            elapsed = time.monotonic() - started
            label = "warm-up" if round_no == 0 else f"#{round_no}"
            # Outside the phases: container start, Python start and the report for docker.
            phases = sum(o.duration_seconds for o in report.outcomes.values())
            print(
                f"{args.task} {name:<6} {label:<7} {elapsed:6.2f} s  (phases {phases:5.2f} s, "
                f"outside them {elapsed - phases:4.2f} s)  overall {report.overall:.3f}"
            )
            if round_no:
                times[name].append(elapsed)
                outside[name].append(elapsed - phases)
    local_median = statistics.median(times["local"])
    docker_median = statistics.median(times["docker"])
    ratio = docker_median / local_median
    print(
        f"median of {args.repeat}: local {local_median:.2f} s, docker {docker_median:.2f} s "
        f"(cpus={args.cpus}); ratio {ratio:.2f}x; goal <= {GOAL}x: "
        f"{'met' if ratio <= GOAL else 'MISSED'}"
    )
    print(
        f"median time outside the phases: local {statistics.median(outside['local']):.2f} s, "
        f"docker {statistics.median(outside['docker']):.2f} s"
    )


if __name__ == "__main__":
    main()
