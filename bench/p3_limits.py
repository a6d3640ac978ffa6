"""What keeps P3 from deciding a corpus spec's windows: per spec, the TLC runs, the largest run's
distinct states, whether the CPU work bound was reached, where each trace was left and why, and
the undecided windows grouped by their typed hint.

    .venv/bin/python bench/p3_limits.py --only "etcd (bug)" [--traces N]

`--traces N` follows only the first N traces of the task (all by default).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fidelity.corpus import CORPUS, score  # noqa: E402


def limits(name: str, traces: int) -> None:
    entry = next(e for e in CORPUS if e.name == name)
    started = time.monotonic()
    report = score(entry, phases=["syntax", "runtime", "conformance"], traces=traces)
    p3 = report.outcomes["conformance"]
    details = p3.details
    bounds = details.get("follow_bounds") or {}
    print(
        f"{name}: {len(p3.windows)} windows (symmetry probes included), P3 {p3.status} {p3.score}"
    )
    print(f"  wall {time.monotonic() - started:.1f} s, TLC runs {details.get('tlc_runs')}")
    print(
        f"  largest run {bounds.get('largest_run_states')} of {bounds.get('max_states_per_run')}"
        f" distinct states; CPU work bound reached: {bounds.get('work_bound_reached')}"
    )
    verdicts = Counter(w.verdict for w in p3.windows)
    print(f"  verdicts {dict(verdicts)}")
    for hint, count in Counter(
        w.detail.get("hint", "") for w in p3.windows if w.verdict == "undecided"
    ).most_common():
        print(f"  undecided {count:5d}: {hint[:110]}")
    for row in details.get("traces", []):
        left = row.get("left_trace_at") or {}
        picked = row.get("picked_up_at") or []
        where = (
            f"left at position {left.get('position')} of {row.get('events')}"
            f" ({left.get('reason', '')[:70]})"
            if left
            else f"followed to its end ({row.get('events')} events)"
        )
        print(f"  {row['trace_id']}: {where}; picked up again {len(picked)} time(s)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", required=True, help="a corpus entry's name")
    parser.add_argument("--traces", type=int, default=0)
    args = parser.parse_args()
    limits(args.only, args.traces)


if __name__ == "__main__":
    main()
