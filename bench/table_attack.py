"""The lookup-table attack against held-out traces our harnesses make (issue "A test set nobody
has seen"; docs/decisions/0012-held-out-traces.md), beside the reference's public and held-out P3
on the same set: what the official configuration gives a memorised corpus, and the noise an
honest spec shows between the two sets.

    .venv/bin/python bench/table_attack.py [--tasks spin mutex rwmutex etcd] [--seed N] [--runs K]

For each task: `bin/make-traces TASK --seed N --runs K` writes a held-out set into a temporary
folder, in the layout the contract reads (`traces.layouts()`); the table is
`tests/heldout_support.lookup_table_spec` over every public window (with every permutation of a
contract's symmetric actors, as an attacker who knows the probes would write it); both it and the
reference are scored through all four phases with that held-out set. One JSON line per spec.

The seed is printed so that a figure can be made again; an instance's own held-out seeds are
private (`bin/make-traces` README). The default seed is drawn at random. Django-free.
"""

from __future__ import annotations

import argparse
import json
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluation.inputs.contracts import Contract, load_contract  # noqa: E402
from evaluation.pipeline import score_spec  # noqa: E402
from evaluation.windows import cut_windows  # noqa: E402
from evaluation.windows.heldout import cut_heldout  # noqa: E402
from tests.fidelity.corpus import DATA_DIR  # noqa: E402
from tests.heldout_support import lookup_table_spec, with_permutations  # noqa: E402

HARNESS_TASKS = ["spin", "mutex", "rwmutex", "etcd"]
# The values of the schema variables no window shows, as the reference's Init sets them: the
# table keeps them unchanged.
HIDDEN: dict[str, dict[str, object]] = {
    "spin": {"callType": dict.fromkeys(("0", "1", "2"), "none")},
    "mutex": {
        "callType": dict.fromkeys(("0", "1", "2"), "none"),
        "guard": dict.fromkeys(("0", "1", "2"), False),
    },
}


def make_heldout(contract: Contract, folder: Path, seed: int, runs: int) -> None:
    # The harness's layout is the contract's last (spin's held-out one, the others' only one):
    # its folder is where `bin/make-traces` writes inside the held-out folder.
    assert contract.traces is not None
    out = folder / Path(contract.traces.layouts()[-1].paths[0]).parent
    task = contract.slug
    command = ["bin/make-traces", task, "--seed", str(seed), "--runs", str(runs), "--out", str(out)]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True, timeout=1800)


def table_of(contract: Contract, windows: list) -> str:
    ids = contract.traces.symmetric_actors if contract.traces is not None else ()
    rows = with_permutations(windows, tuple(ids)) if ids else windows
    return lookup_table_spec(contract, rows, HIDDEN.get(contract.slug, {}))


def measure(label: str, spec: str, contract: Contract, public: list, held: list) -> None:
    started = time.monotonic()
    report = score_spec(spec, contract, public, heldout_windows=held)
    p3 = report.outcomes["conformance"].details
    public_p3, held_p3 = p3.get("public") or {}, p3.get("heldout") or {}
    row = {
        "spec": label,
        "overall": round(report.overall or 0, 4),
        "phases": {k: o.score for k, o in report.outcomes.items()},
        "p3_public": public_p3.get("score"),
        "p3_heldout": held_p3.get("score"),
        "rate_public": public_p3.get("pooled_rate"),
        "rate_heldout": held_p3.get("pooled_rate"),
        "flagged": (p3.get("fits_public") or {}).get("flagged"),
        "seconds": round(time.monotonic() - started, 1),
    }
    print(json.dumps(row), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", nargs="*", default=HARNESS_TASKS)
    parser.add_argument("--seed", type=int, default=secrets.randbelow(10**9))
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    print(json.dumps({"seed": args.seed, "runs": args.runs}), flush=True)
    for task in args.tasks:
        contract = load_contract(task)
        public = cut_windows(contract, DATA_DIR)
        with tempfile.TemporaryDirectory(prefix=f"heldout-{task}-") as folder:
            make_heldout(contract, Path(folder), args.seed, args.runs)
            held = cut_heldout(contract, folder) or []
        print(json.dumps({"task": task, "public": len(public), "heldout": len(held)}), flush=True)
        reference = (contract.directory / "reference" / f"{contract.module}.tla").read_text()
        measure(f"{task} reference", reference, contract, public, held)
        measure(f"{task} table", table_of(contract, public), contract, public, held)


if __name__ == "__main__":
    main()
