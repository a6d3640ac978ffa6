"""Full four-phase scoring time (wall and CPU) of the reference specs (spin, etcd, locksvc).

    .venv/bin/python bench/score.py [--tasks spin etcd locksvc] [--repeat 1] [--data DIR]
    .venv/bin/python bench/score.py --against [REV] [--tasks spin] [--repeat 3]
    .venv/bin/python bench/score.py --overhead [--tasks spin] [--repeat 2]

For each task: cut the windows from the benchmark data (not timed; the job reads them from the
database), then time `score_spec` on `tasks_data/<task>/reference/<module>.tla` exactly as the
rq job runs it: P1 SANY, P2 TLC, P3 following the traces, P4 the invariants. Prints each
phase's wall and CPU time and score, the totals (median over --repeat), the goal on 2 cores
(spin <= 20 s, etcd and locksvc <= 5 min; judged on wall time) and P4's verdict per invariant
(`vacuous` / `not credited` for one that holds without credit). A task whose contract or
reference spec is missing is reported as missing. Django-free.

CPU time is this process's own plus that of the tool processes it reaped (getrusage: SELF +
CHILDREN, user + system): on a shared machine wall time moves with the load, CPU time much less.
A phase's CPU is measured between the ends of consecutive phases, so it includes the few
milliseconds of glue between them (the first also the spec's parse before P1).

--against REV scores the same reference spec (this tree's file) with the scorer at git revision
REV as well: a temporary `git worktree add --detach` of REV, removed afterwards, run with this
interpreter. Each run, for both scorers, is a fresh interpreter (as a forked rq work-horse
starts with empty per-process caches) calling that tree's `evaluation.pipeline.score_spec`
through `_measure` (passed with `python -c`, so REV's own bench need not have this interface),
with that tree's contract and window cutter; the runs alternate (REV, this tree, REV, ...) so
that a change of load hits both. Prints both sets of medians per phase, their ratios (REV / this
tree: above 1 means faster now) and whether the overall, every phase's status and score, P2's and
P3's per-action counts, P3's window verdicts and P4's invariant verdicts are identical. The
default REV is the mainline commit just before the tool versions were probed once per
installation (`DEFAULT_AGAINST`).

--overhead measures what each run pays outside its phases (total minus the phases' durations)
as a forked rq work-horse sees it: every run starts with empty per-process caches. "before"
also removes the persisted tool-version record (so the probes run per run, as they did);
"after" keeps it. Prints both medians and their ratio (the probes run at the first JVM a run
starts, so they show in P1), then the tool-version cost alone per work-horse; the goal for the
time outside the phases is <= 0.2 s.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOALS = {"spin": 20.0, "etcd": 300.0, "locksvc": 300.0}
# 068111c^1: the mainline commit before the merge of 'scale' (tool versions probed once per
# installation, 4c5786f). Its contracts are today's; 4c5786f's own parent (2096732) predates
# the work-bound budgets (scorer 2.1.0), whose contracts and verdicts differ.
DEFAULT_AGAINST = "90458119784b9e96e9ae59d212762ec37f6416c6"
RESULT_MARK = "BENCH-SCORE-RESULT "

Run = dict[str, Any]  # what `_measure` returns (JSON, so that it crosses a process boundary)


def _measure(slug: str, spec_path: str, data_dir: str) -> Run:
    """One scoring of `spec_path` under the contract `slug`, with wall and CPU per phase.

    Self-contained (its imports inside, no global names; its annotations are not evaluated
    there, `from __future__ import annotations`): its source is also run with
    `python -c` in another revision's tree, where it scores with that tree's scorer."""
    import resource
    import time
    from pathlib import Path

    from evaluation.inputs.contracts import load_contract
    from evaluation.pipeline import score_spec
    from evaluation.windows import cut_windows

    def cpu() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        tools = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + tools.ru_utime + tools.ru_stime

    contract = load_contract(slug)
    windows = cut_windows(contract, Path(data_dir)) if contract.has_traces else []
    spec = Path(spec_path).read_text()
    ends: list[float] = []
    wall_start, cpu_start = time.monotonic(), cpu()
    report = score_spec(spec, contract, windows, on_phase=lambda _: ends.append(cpu()))
    wall, cpu_total = time.monotonic() - wall_start, cpu() - cpu_start
    phases: list[dict[str, object]] = []
    actions: dict[str, list[list[object]]] = {}
    window_verdicts: list[str] = []
    invariants: dict[str, str] = {}
    for index, outcome in enumerate(report.outcomes.values()):
        before = cpu_start if index == 0 else ends[index - 1]
        phases.append(
            {
                "phase": outcome.phase,
                "status": outcome.status,
                "score": outcome.score,
                "wall": outcome.duration_seconds,
                "cpu": ends[index] - before,
            }
        )
        actions[outcome.phase] = [[a.action, a.passed, a.total] for a in outcome.actions]
        window_verdicts += sorted(
            f"{w.trace_id}/{w.window_id}/{w.action}={w.verdict}" for w in outcome.windows
        )
        for inv in outcome.invariants:
            label: str = inv.verdict
            for prefix in ("vacuous", "not credited"):
                if inv.verdict == "error" and inv.reason.startswith(prefix):
                    label = prefix
            invariants[inv.name] = label
    return {
        "overall": report.overall,
        "wall": wall,
        "cpu": cpu_total,
        "phases": phases,
        "actions": actions,
        "windows": window_verdicts,
        "invariants": invariants,
        "window_count": len(windows),
        "windows_sha256": report.fingerprint.get("windows_sha256"),
        "scorer_version": report.fingerprint.get("scorer_version"),
    }


def _measure_in(tree: Path, slug: str, spec_path: Path, data_dir: Path) -> Run:
    """`_measure` in a fresh interpreter scoring with the scorer of `tree`."""
    script = "\n".join(
        [
            "from __future__ import annotations",
            "import json, sys",
            f"sys.path.insert(0, {str(tree)!r})",
            inspect.getsource(_measure),
            f"result = _measure({slug!r}, {str(spec_path)!r}, {str(data_dir)!r})",
            f"print({RESULT_MARK!r} + json.dumps(result))",
        ]
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_MARK):
            run: Run = json.loads(line[len(RESULT_MARK) :])
            return run
    raise RuntimeError(f"scoring in {tree} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")


def _reference(slug: str) -> Path | str:
    """The reference spec of `slug` in this tree, or why there is none."""
    from evaluation.inputs.contracts import ContractError, load_contract

    try:
        contract = load_contract(slug)
    except ContractError as exc:
        return f"missing ({exc})"
    spec_path = ROOT / "tasks_data" / slug / "reference" / f"{contract.module}.tla"
    if not spec_path.is_file():
        return f"missing reference spec {spec_path.relative_to(ROOT)}"
    return spec_path


def _phase_line(run: Run) -> str:
    return ", ".join(
        f"{p['phase']} {p['wall']:.1f}s/{p['cpu']:.1f}s="
        f"{'-' if p['score'] is None else format(p['score'], '.3f')}({p['status']})"
        for p in run["phases"]
    )


def _run_line(label: str, run: Run) -> str:
    overall = "-" if run["overall"] is None else f"{run['overall']:.3f}"
    return (
        f"{label}: wall {run['wall']:.1f} s, cpu {run['cpu']:.1f} s  overall {overall}  "
        f"[phase wall/cpu=score: {_phase_line(run)}]"
    )


def _verdicts(run: Run) -> dict[str, Any]:
    """Everything of a run that is a verdict (no time)."""
    return {
        "overall": run["overall"],
        "phases": [(p["phase"], p["status"], p["score"]) for p in run["phases"]],
        "actions": run["actions"],
        "windows": run["windows"],
        "invariants": run["invariants"],
        "windows_sha256": run["windows_sha256"],
    }


def _differences(first: Run, other: Run) -> list[str]:
    mine, theirs = _verdicts(first), _verdicts(other)
    return [key for key in mine if mine[key] != theirs[key]]


def _invariants_line(run: Run) -> str:
    shown = ", ".join(f"{name}={label}" for name, label in run["invariants"].items())
    return shown or "(none)"


def _windows_tally(run: Run) -> str:
    tally: dict[str, int] = {}
    for entry in run["windows"]:
        verdict = entry.rsplit("=", 1)[1]
        tally[verdict] = tally.get(verdict, 0) + 1
    return ", ".join(f"{n} {v}" for v, n in sorted(tally.items())) or "none"


def _medians(runs: list[Run]) -> dict[str, tuple[float, float]]:
    """Per phase and in total: the median wall and CPU seconds."""
    names = [p["phase"] for p in runs[0]["phases"]]
    out = {
        name: (
            statistics.median(r["phases"][i]["wall"] for r in runs),
            statistics.median(r["phases"][i]["cpu"] for r in runs),
        )
        for i, name in enumerate(names)
    }
    # Outside: wall exact; CPU the spec's parse before P1 and the fingerprint after P4 (the
    # glue between phases is in the next phase's CPU).
    out["outside"] = (
        statistics.median(r["wall"] - sum(p["wall"] for p in r["phases"]) for r in runs),
        statistics.median(r["cpu"] - sum(p["cpu"] for p in r["phases"]) for r in runs),
    )
    out["total"] = (
        statistics.median(r["wall"] for r in runs),
        statistics.median(r["cpu"] for r in runs),
    )
    return out


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def bench_task(slug: str, data_dir: Path, repeat: int) -> None:
    spec_path = _reference(slug)
    if isinstance(spec_path, str):
        print(f"{slug}: {spec_path}")
        return
    runs: list[Run] = []
    for attempt in range(1, repeat + 1):
        runs.append(_measure(slug, str(spec_path), str(data_dir)))
        print(_run_line(f"{slug} #{attempt}", runs[-1]))
    medians = _medians(runs)
    wall, cpu = medians["total"]
    goal = GOALS.get(slug)
    verdict = (
        ""
        if goal is None
        else f"  goal <= {goal:.0f} s (wall): {'met' if wall <= goal else 'MISSED'}"
    )
    print(
        f"{slug}: {runs[0]['window_count']} windows, median wall {wall:.1f} s, cpu {cpu:.1f} s "
        f"over {repeat} run(s) ({_load()}){verdict}"
    )
    for name, (phase_wall, phase_cpu) in medians.items():
        print(f"  {name:<12} wall {phase_wall:6.2f} s   cpu {phase_cpu:6.2f} s")
    print(f"{slug} P3 windows: {_windows_tally(runs[0])}")
    print(f"{slug} P4 invariants: {_invariants_line(runs[0])}")
    if repeat > 1:
        differ = sorted({key for run in runs[1:] for key in _differences(runs[0], run)})
        print(
            f"{slug}: verdicts identical in all {repeat} runs"
            if not differ
            else f"{slug}: verdicts DIFFER between runs in {', '.join(differ)}"
        )


def _revision_tree(rev: str, into: Path) -> str:
    """Check `rev` out (detached) at `into`; returns its short hash."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(into), rev],
        check=True,
    )
    return subprocess.run(
        ["git", "-C", str(into), "rev-parse", "--short", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _remove_tree(tree: Path) -> None:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False
    )
    subprocess.run(["git", "-C", str(ROOT), "worktree", "prune"], check=False)


def bench_against(slugs: list[str], rev: str, data_dir: Path, repeat: int) -> None:
    here = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "evaluation"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    now = f"this tree ({here}{' + uncommitted changes' if dirty else ''})"
    with tempfile.TemporaryDirectory(prefix="bench-score-") as scratch:
        tree = Path(scratch) / "rev"
        old = _revision_tree(rev, tree)
        try:
            for slug in slugs:
                _compare(slug, (old, f"{rev} ({old})", tree), ("now", now, ROOT), data_dir, repeat)
        finally:
            _remove_tree(tree)


def _compare(
    slug: str,
    then_scorer: tuple[str, str, Path],
    now_scorer: tuple[str, str, Path],
    data_dir: Path,
    repeat: int,
) -> None:
    """`then_scorer` and `now_scorer`: (short label, description, tree)."""
    spec_path = _reference(slug)
    if isinstance(spec_path, str):
        print(f"{slug}: {spec_path}")
        return
    then, now = then_scorer[0], now_scorer[0]
    print(
        f"{slug}: {then_scorer[1]} against {now_scorer[1]}, {repeat} run(s) each, alternating, "
        "each in a fresh interpreter"
    )
    runs: dict[str, list[Run]] = {then: [], now: []}
    for attempt in range(1, repeat + 1):
        for label, _, root in (then_scorer, now_scorer):
            run = _measure_in(root, slug, spec_path, data_dir)
            runs[label].append(run)
            print(_run_line(f"{slug} {label} #{attempt}", run))
    old, new = _medians(runs[then]), _medians(runs[now])

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}x" if b > 0 else "inf"

    print(f"{slug} medians ({_load()}), {then} -> {now} (ratio {then}/{now}, > 1: faster now):")
    for name in old:
        (ow, oc), (nw, nc) = old[name], new.get(name, (0.0, 0.0))
        print(
            f"  {name:<12} wall {ow:6.2f} -> {nw:6.2f} s ({ratio(ow, nw)})"
            f"   cpu {oc:6.2f} -> {nc:6.2f} s ({ratio(oc, nc)})"
        )
    first = runs[then][0]
    differ = sorted({key for run in runs[then][1:] + runs[now] for key in _differences(first, run)})
    print(f"{slug} P3 windows: {_windows_tally(first)}")
    print(f"{slug} P4 invariants: {_invariants_line(first)}")
    versions = {r["scorer_version"] for r in runs[then] + runs[now]}
    print(
        f"{slug}: every verdict identical (overall, phase status and score, P2/P3 action counts, "
        f"P3 window verdicts, P4 invariants; scorer {', '.join(sorted(map(str, versions)))})"
        if not differ
        else f"{slug}: verdicts DIFFER in {', '.join(differ)}"
    )
    if differ:
        for key in differ:
            print(f"  {key}: then {_verdicts(first)[key]!r}")
            print(f"  {key}: now  {_verdicts(runs[now][0])[key]!r}")


def _fresh_work_horse(keep_record: bool) -> None:
    """Empty the per-process caches a forked work-horse starts without."""
    from evaluation.tla import tools

    if not keep_record:
        path = tools._versions_record_path()
        if path is not None:
            path.unlink(missing_ok=True)
    caches: list[Any] = [tools.tool_versions, tools.probed_versions, tools.java_version]
    for cached in [*caches, tools.jar_path]:
        cached.cache_clear()


def bench_overhead(slug: str, data_dir: Path, repeat: int) -> None:
    from evaluation.tla.tools import fingerprint as tools_fingerprint

    spec_path = _reference(slug)
    if isinstance(spec_path, str):
        print(f"{slug}: {spec_path}")
        return
    medians: dict[str, dict[str, float]] = {}
    for mode, keep in (("before", False), ("after", True)):
        seen: dict[str, list[float]] = {"outside": [], "P1": [], "total": [], "total cpu": []}
        for _ in range(repeat):
            _fresh_work_horse(keep)
            run = _measure(slug, str(spec_path), str(data_dir))
            seen["outside"].append(run["wall"] - sum(p["wall"] for p in run["phases"]))
            seen["P1"].append(next(p["wall"] for p in run["phases"] if p["phase"] == "syntax"))
            seen["total"].append(run["wall"])
            seen["total cpu"].append(run["cpu"])
        medians[mode] = {k: statistics.median(v) for k, v in seen.items()}
        shown = "  ".join(f"{k} {v:.3f} s" for k, v in medians[mode].items())
        print(f"{slug} {mode} (median of {repeat}, {_load()}): {shown}")
    # The first JVM a run starts (P1's) asks the versions, so a probe shows in P1 as well.
    for key in medians["before"]:
        before, after = medians["before"][key], medians["after"][key]
        ratio = f"{before / after:.2f}x" if after > 0 else "inf"
        print(f"{slug} {key}: before {before:.3f} s, after {after:.3f} s, before/after {ratio}")
    probe = {}
    for mode, keep in (("before", False), ("after", True)):
        _fresh_work_horse(keep)
        started = time.monotonic()
        tools_fingerprint()
        probe[mode] = time.monotonic() - started
    speedup = probe["before"] / probe["after"] if probe["after"] > 0 else float("inf")
    print(
        f"tool versions per work-horse: before {probe['before']:.3f} s, "
        f"after {probe['after']:.3f} s, before/after {speedup:.0f}x"
    )
    fixed = medians["after"]["outside"]
    verdict = "met" if fixed <= 0.2 else "MISSED"
    print(f"{slug}: outside the phases {fixed:.3f} s; goal <= 0.2 s: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=["spin", "etcd", "locksvc"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--overhead", action="store_true", help="time outside the phases")
    parser.add_argument(
        "--against",
        nargs="?",
        const=DEFAULT_AGAINST,
        metavar="REV",
        help=f"also score with the scorer at git revision REV (default {DEFAULT_AGAINST})",
    )
    default_data = os.environ.get("SYSMOBENCH_DATA_DIR", ROOT / "corpus")
    parser.add_argument("--data", type=Path, default=Path(default_data))
    args = parser.parse_args()
    data_dir: Path = args.data.resolve()
    repeat = max(1, args.repeat)
    if args.against:
        bench_against(args.tasks, args.against, data_dir, repeat)
        return
    bench: Callable[[str, Path, int], None] = bench_overhead if args.overhead else bench_task
    for slug in args.tasks:
        bench(slug, data_dir, repeat)


if __name__ == "__main__":
    main()
