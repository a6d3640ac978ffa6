"""Score every spec of the fidelity corpus through all four phases and print the time and the
verdicts of each (goal: under 5 minutes per spec on the project's 2-core machine).

    .venv/bin/python bench/fidelity.py [--only NAME-SUBSTRING] [--json OUT] [--phases P ...]

`--phases conformance` scores P3 alone (its time is printed per spec either way).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fidelity.corpus import CORPUS, score  # noqa: E402


def summary(report) -> dict:
    phases = {}
    for name, o in report.outcomes.items():
        row = {"status": o.status, "score": o.score, "seconds": o.duration_seconds}
        if name == "runtime":
            row["actions"] = {a.action: a.passed for a in o.actions}
        if name == "conformance":
            row["per_action"] = {
                a: {
                    **{k: r.get(k) for k in ("passed", "failed", "undecided", "errors", "total")},
                    # Fair negative windows (scored): accepted of checked.
                    "fair_negatives": "{accepted}/{checked}".format(
                        **(r.get("specificity") or {}).get("fair", {"accepted": 0, "checked": 0})
                    ),
                }
                for a, r in o.details.get("per_action", {}).items()
            }
        if name == "invariant":
            row["invariants"] = {i.name: i.verdict for i in o.invariants}
            row["reasons"] = {i.name: i.reason[:200] for i in o.invariants if i.reason}
            # Invariants that held but earned no credit (evaluation/phases/invariants/credit.py).
            row["withdrawn"] = (o.details.get("credit") or {}).get("withdrawn", {})
            # TLC runs and their times: a figure the machine's load does not change.
            row["runs"] = [
                f"{r['checked'][:60]}: exit {r['exit_code']}, {r['seconds']:.1f} s"
                for r in o.details.get("runs", [])
            ]
        if o.status == "error" or "error" in o.details:
            row["error"] = str(o.details.get("error") or o.details.get("reason"))[:400]
        phases[name] = row
    overall = None if report.overall is None else round(report.overall, 4)
    return {"overall": overall, "phases": phases}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    parser.add_argument("--json")
    parser.add_argument("--phases", nargs="*", help="score only these phases")
    args = parser.parse_args()
    results = {}
    for entry in CORPUS:
        if args.only and args.only not in entry.name:
            continue
        started = time.monotonic()
        try:
            report = score(entry, phases=args.phases) if args.phases else score(entry)
            row = summary(report)
        except Exception as exc:  # noqa: BLE001 - report and go on with the next spec
            row = {"crashed": f"{type(exc).__name__}: {exc}"}
        row["seconds"] = round(time.monotonic() - started, 1)
        row["adapter_lines"] = entry.adapter_lines()
        results[entry.name] = row
        p3 = (row.get("phases") or {}).get("conformance", {}).get("seconds")
        p3_text = f"P3 {p3:.1f} s" if isinstance(p3, int | float) else "P3 -"
        print(f"{entry.name:<28} {row['seconds']:>7.1f} s  {p3_text}  overall {row.get('overall')}")
        print("    " + json.dumps(row.get("phases") or row, default=str))
        sys.stdout.flush()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
