"""Conformance benchmark: one cold TLC JVM per window (SysMoBench's way) against our batch.

    .venv/bin/python bench/conformance.py [--task spin] [--limit N] [--data DIR]

(a) For each window, sequentially: a module checking just that window, run by a fresh
    `java -cp tla2tools.jar tlc2.TLC` (its own directory, metadir and tmpdir), as SysMoBench's
    TV runner does: the wrapper from its window-built pre-state, or (where the spec keeps state
    the window does not give) an exploration from Init that checks it from every reachable state
    showing its pre-state. Verdict: the window passed from every pre-state and TLC ended with
    exit 0; anything else that is not a clean run is an error.
(b) `check_conformance` on the same windows: the whole P3 phase as scoring runs it (distinct
    cases batched into one TLC run, plus the specificity checks and failing-window diagnosis).
Prints both wall times, the ratio and whether every window's verdict is identical.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluation.inputs.contracts import Adapter, load_contract  # noqa: E402
from evaluation.phases.conformance import check_conformance  # noqa: E402
from evaluation.phases.conformance import generator as gen  # noqa: E402
from evaluation.phases.conformance.cases import Case, validate_window  # noqa: E402
from evaluation.phases.conformance.check import _constrained  # noqa: E402
from evaluation.phases.conformance.diagnose import read_tagged  # noqa: E402
from evaluation.phases.conformance.explore import exploration_module  # noqa: E402
from evaluation.phases.conformance.runner import tagged, verdict  # noqa: E402
from evaluation.phases.conformance.vocab import schema_vocab  # noqa: E402
from evaluation.tla import tools  # noqa: E402
from evaluation.tla.spectext import spec_constants, spec_variables  # noqa: E402
from evaluation.windows import cut_windows  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent.parent / "corpus"


def plan_for(spec_text: str, contract, windows: list[dict], vocab) -> gen.Plan:
    return gen.Plan(
        spec_module=contract.module,
        nonce=secrets.token_hex(6),
        adapter=Adapter.identity_for(contract),
        observed=_constrained(contract, windows),
        vocab=vocab,
        spec_variables=spec_variables(spec_text),
        constants={k: v for k, v in contract.constants.items() if k in spec_constants(spec_text)},
    )


def _case(window: dict) -> Case:
    return Case(
        "",
        window["action"],
        window["actor"],
        window.get("input"),
        window["pre_state"],
        window["post_state"],
    )


def one_jvm(spec_text: str, contract, plan: gen.Plan, case: Case, explored: bool) -> str:
    nonce = plan.nonce
    name = gen.module_name(plan)
    actions = list(contract.actions)
    if explored:
        bounds = (
            contract.budget("conformance", "depth"),
            contract.budget("conformance", "max_states"),
        )
        module = exploration_module(plan, bounds, [case], actions, [], [], False)
    else:
        module = gen.build_module(plan, [case], actions, gen.AuxRule("pinned"))
    work = Path(tempfile.mkdtemp(prefix="conf-bench-"))
    try:
        (work / f"{contract.module}.tla").write_text(spec_text)
        (work / f"{name}.tla").write_text(module)
        (work / f"{name}.cfg").write_text(gen.build_cfg(plan))
        argv = [
            "java",
            f"-Djava.io.tmpdir={work}",
            f"-DTLA-Library={tools.MODULES_DIR}",
            "-cp",
            tools.jar_path(),
            "tlc2.TLC",
            "-deadlock",
            "-workers",
            "1",
            "-metadir",
            str(work / "meta"),
            "-config",
            f"{name}.cfg",
            f"{name}.tla",
        ]
        proc = subprocess.run(
            argv, cwd=work, capture_output=True, text=True, timeout=120, check=False
        )
        if proc.returncode != 0:
            return "error"
        if explored:
            lines = read_tagged(proc.stdout, nonce, "e")
            if not lines:
                return "undecided"
            return "pass" if all(1 in line[2].items for line in lines) else "fail"
        checked = tagged(proc.stdout, nonce, "c").get(1, set())
        passed = tagged(proc.stdout, nonce, "v").get(1, set())
        return verdict(checked, passed).verdict
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="spin")
    parser.add_argument("--limit", type=int, default=None, help="first N windows only")
    parser.add_argument("--data", default=os.environ.get("SYSMOBENCH_DATA_DIR", str(DEFAULT_DATA)))
    parser.add_argument("--spec", default=None, help="spec file (default: the reference)")
    args = parser.parse_args()
    contract = load_contract(args.task)
    spec_path = Path(args.spec or contract.directory / "reference" / f"{contract.module}.tla")
    spec_text = spec_path.read_text()
    windows = cut_windows(contract, args.data)[: args.limit]
    vocab = schema_vocab(contract)
    assert all(validate_window(w, contract, vocab) == "" for w in windows)
    print(f"{args.task}: {len(windows)} windows, spec {spec_path.name}")

    start = time.monotonic()
    plan = plan_for(spec_text, contract, windows, vocab)
    cases = [_case(w) for w in windows]
    cold = []
    for i, case in enumerate(cases, start=1):
        cold.append(one_jvm(spec_text, contract, plan, case, not gen.built(plan, case)))
        if i % 25 == 0:
            print(f"  (a) {i}/{len(windows)} windows, {time.monotonic() - start:.1f} s", flush=True)
    cold_seconds = time.monotonic() - start

    start = time.monotonic()
    outcome = check_conformance(spec_text, contract, windows)
    batch_seconds = time.monotonic() - start
    ours = [w.verdict for w in outcome.windows]

    same = cold == ours
    print(
        f"(a) one cold JVM per window: {cold_seconds:.1f} s "
        f"({cold_seconds / len(windows):.2f} s/window), verdicts {_count(cold)}"
    )
    print(
        f"(b) batched check_conformance: {batch_seconds:.2f} s "
        f"({outcome.details.get('tlc_runs')} TLC run(s), "
        f"{outcome.details.get('distinct_cases')} distinct cases, "
        f"{outcome.details.get('negative_cases')} specificity cases), verdicts {_count(ours)}"
    )
    print(f"ratio (a)/(b): {cold_seconds / batch_seconds:.1f}x")
    print(f"every verdict identical: {same}")
    if not same:
        diff = [i for i, (x, y) in enumerate(zip(cold, ours, strict=True)) if x != y]
        print(f"  differing windows: {diff[:20]}")


def _count(verdicts: list[str]) -> dict:
    return {v: verdicts.count(v) for v in sorted(set(verdicts))}


if __name__ == "__main__":
    main()
