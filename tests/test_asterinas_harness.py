"""End to end: build our Asterinas harness (upstream sources compiled unmodified), run a short
scenario of each task with real threads, and cut the traces it wrote into windows."""

import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from evaluation.inputs.contracts import Traces, load_contract
from evaluation.windows import cut_with_summary

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.harness


def _cargo_env() -> dict:
    env = dict(os.environ)
    if shutil.which("cargo") is None:
        env["PATH"] = f"{Path.home() / '.cargo' / 'bin'}{os.pathsep}{env['PATH']}"
    return env


@pytest.fixture(scope="module")
def short_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("asterinas-traces")
    run = subprocess.run(
        ["bin/make-traces", "asterinas", "--out", str(out), "--scenarios", "3", "--ops", "6"],
        cwd=ROOT,
        env=_cargo_env(),
        capture_output=True,
        text=True,
        timeout=600,
        start_new_session=True,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return out, run.stdout


@pytest.mark.parametrize("slug", ["mutex", "rwmutex", "ringbuffer"])
def test_short_run_is_cut_into_windows(short_run, slug):
    out, stdout = short_run
    assert f"{slug}: 3 scenarios" in stdout
    files = sorted((out / slug).glob("trace_*.jsonl"))
    assert [f.name for f in files] == ["trace_01.jsonl", "trace_02.jsonl", "trace_03.jsonl"]
    contract = load_contract(slug)
    contract = replace(
        contract, traces=Traces(contract.traces.format, (f"{slug}/trace_*.jsonl",), "data")
    )
    cut = cut_with_summary(contract, out)
    assert cut.windows
    assert set(cut.actions) <= set(contract.actions)
    assert {w["trace_id"] for w in cut.windows} <= {f"{slug}/trace_0{i}" for i in (1, 2, 3)}


def test_run_records_its_commands_and_seeds(short_run):
    out, _ = short_run
    provenance = (out / "PROVENANCE.md").read_text()
    assert "--seed 13001 --scenarios 3 --ops 6" in provenance
    assert "upstream Asterinas v0.16.0" in provenance
