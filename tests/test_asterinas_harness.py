"""End to end: `bin/make-traces` builds our Asterinas harness on the `ostd` crate pinned in
harnesses/asterinas/Cargo.lock (fetched from crates.io, its sync files compiled unmodified), runs
a short scenario of each task with real threads, and the traces it wrote are cut into windows and
carry their provenance. They are written where a held-out folder keeps them
(docs/decisions/0012-held-out-traces.md), and the official contract reads them from there as
they are. The ring buffer, whose crate no registry publishes, is refused."""

import os
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from evaluation.inputs.contracts import Traces, load_contract
from evaluation.windows import cut_with_summary
from evaluation.windows.heldout import cut_heldout

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "harnesses" / "asterinas" / "Cargo.lock"
pytestmark = pytest.mark.harness

TASKS = {"spin": "asterinas-spin", "mutex": "asterinas-mutex", "rwmutex": "asterinas-rwmutex"}
SEED = 4242
# Where a held-out folder holds a task's harness traces: the committed corpus's own path.
HELD = Path("harnesses/asterinas/traces")


def _make_traces(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if shutil.which("cargo") is None:
        env["PATH"] = f"{Path.home() / '.cargo' / 'bin'}{os.pathsep}{env['PATH']}"
    return subprocess.run(
        ["bin/make-traces", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        start_new_session=True,
    )


@pytest.fixture(scope="module")
def short_runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("asterinas-traces")
    for task in TASKS:
        run = _make_traces(
            task, "--seed", str(SEED), "--runs", "3", "--out", str(out / HELD / task)
        )
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
        assert f"{task}: 3 scenarios" in run.stdout
    return out


def _locked_ostd_checksum() -> str:
    match = re.search(
        r'name = "ostd"\nversion = "0\.16\.0"\nsource = "registry\+[^"]+"\nchecksum = "(\w+)"',
        LOCK.read_text(),
    )
    assert match, "ostd 0.16.0 from the registry is not pinned in Cargo.lock"
    return match.group(1)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_short_run_is_cut_into_windows(short_runs, task):
    files = sorted((short_runs / HELD / task).glob("trace_*.jsonl"))
    assert [f.name for f in files] == ["trace_01.jsonl", "trace_02.jsonl", "trace_03.jsonl"]
    contract = load_contract(task)
    traces = Traces(TASKS[task], (f"{HELD}/{task}/trace_*.jsonl",), "data")
    cut = cut_with_summary(replace(contract, traces=traces), short_runs)
    assert cut.windows
    assert set(cut.actions) <= set(contract.actions)
    assert {w["trace_id"] for w in cut.windows} <= {f"{task}/trace_0{i}" for i in (1, 2, 3)}


@pytest.mark.parametrize("task", sorted(TASKS))
def test_run_records_the_registry_crate_and_its_command(short_runs, task):
    provenance = (short_runs / HELD / task / "PROVENANCE.md").read_text()
    assert f"crates.io, package `ostd` 0.16.0 (sha256 {_locked_ostd_checksum()}" in provenance
    # The commit the crate was packaged from, read from the unpacked crate by build.rs.
    assert "asterinas/asterinas commit 4e78653b5bcab9dc0d9899a4c4089f512f76643e" in provenance
    assert f"`bin/make-traces {task} --seed {SEED} --runs 3`" in provenance
    made = (short_runs / HELD / task).glob("*.jsonl")
    events = sum(len(f.read_text().splitlines()) for f in made)
    assert f"3 traces, {events} events" in provenance


@pytest.mark.parametrize("task", sorted(TASKS))
def test_what_it_writes_is_read_as_a_held_out_set_by_the_official_contract(short_runs, task):
    # spin's public windows are SysMoBench's (another format); its contract names this layout
    # too (`traces.heldout`), so the folder needs no conversion for any of the three tasks.
    windows = cut_heldout(load_contract(task), short_runs)
    assert windows
    assert {w["trace_id"] for w in windows} == {f"{task}/trace_0{i}" for i in (1, 2, 3)}


def test_ring_buffer_is_refused_and_nothing_is_written(tmp_path):
    run = _make_traces("ringbuffer", "--out", str(tmp_path / "rb"))
    assert run.returncode == 3
    assert "on no package" in run.stderr
    assert not (tmp_path / "rb").exists()


def test_help_lists_every_asterinas_task():
    run = _make_traces("--help")
    assert run.returncode == 0
    listed = {line.split()[0] for line in run.stdout.splitlines() if "harnesses/asterinas" in line}
    assert listed == {"spin", "mutex", "rwmutex", "ringbuffer"}
