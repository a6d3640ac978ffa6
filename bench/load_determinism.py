"""Score the same specs on a quiet machine and again while busy processes compete for the cores,
and say whether the verdicts are identical (docs/decisions/0004-work-bounds-not-time.md: budgets in
work, not seconds).

    .venv/bin/python bench/load_determinism.py [--only NAME-SUBSTRING] [--busy N]

Specs: the rwmutex bug reproduction and locksvc/claude of the fidelity corpus
(tests/fidelity/corpus.py finds them and their adapters). Prints, per spec, each phase's status
and score and each invariant's verdict, quiet and loaded side by side, the seconds each took,
and "identical: yes/no"; exits 1 when anything differs. A scoring that reaches a safety-net time
limit raises InfrastructureFailure: it is printed as "could not be scored", which is not a
verdict, and counts as a difference here (the nets are meant to hold at this load).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluation.results import InfrastructureFailure  # noqa: E402
from tests.fidelity.corpus import CORPUS, score  # noqa: E402

SPECS = ("rwmutex (bug)", "locksvc/claude")
SPIN = "while 1: pass"


def verdicts(entry) -> tuple[dict[str, str], float]:
    """Phase -> "status score", invariant -> verdict; or one line saying it could not be scored."""
    started = time.monotonic()
    try:
        report = score(entry)
    except InfrastructureFailure as failure:
        return {"(scoring)": f"could not be scored: {failure}"}, time.monotonic() - started
    rows = {name: f"{o.status} {o.score}" for name, o in report.outcomes.items()}
    for outcome in report.outcomes.values():
        rows.update({f"  {i.name}": i.verdict for i in outcome.invariants})
    rows["overall"] = f"{report.overall:.6f}"
    return rows, time.monotonic() - started


def loaded(entry, busy: int) -> tuple[dict[str, str], float]:
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(busy)]
    try:
        return verdicts(entry)
    finally:
        for process in spinners:
            process.kill()
            process.wait()


def compare(name: str, quiet: dict[str, str], busy: dict[str, str]) -> bool:
    keys = list(dict.fromkeys([*quiet, *busy]))
    width = max(len(k) for k in keys)
    print(f"{'':{width}}  {'quiet':<28}  loaded")
    for key in keys:
        a, b = quiet.get(key, "-"), busy.get(key, "-")
        mark = "" if a == b else "   <-- differs"
        print(f"{key:{width}}  {a:<28}  {b}{mark}")
    same = quiet == busy
    print(f"{name}: identical: {'yes' if same else 'no'}\n")
    return same


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    parser.add_argument("--busy", type=int, default=4, help="busy processes during the loaded run")
    args = parser.parse_args()
    entries = [e for e in CORPUS if e.name in SPECS and args.only in e.name]
    if not entries:
        print(f"no corpus spec matches {args.only!r} among {', '.join(SPECS)}", file=sys.stderr)
        return 2
    all_same = True
    for entry in entries:
        print(f"== {entry.name}", flush=True)
        quiet, quiet_seconds = verdicts(entry)
        busy, busy_seconds = loaded(entry, args.busy)
        print(
            f"seconds: quiet {quiet_seconds:.1f}, with {args.busy} busy processes "
            f"{busy_seconds:.1f}"
        )
        all_same = compare(entry.name, quiet, busy) and all_same
    print(f"identical: {'yes' if all_same else 'no'}")
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
