"""The public corpus ships with the project: a copy of the tracked files in a folder with nothing
beside it imports every task's windows and scores the sample spin run, and the compressed corpus
gives the same windows and corpus versions as the uncompressed files it was made from."""

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_all_contracts
from evaluation.windows import cut_with_summary, manifest, stored, trace_base, trace_files
from leaderboard.tasks.importing import corpus_version

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
SIZE_LIMIT_BYTES = 25 * 1024 * 1024


def tracked_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    return [name for name in listed.decode().split("\0") if name]


def test_the_default_data_folder_is_the_shipped_corpus():
    assert Path(settings.SYSMOBENCH_DATA_DIR).resolve() == CORPUS.resolve() or os.environ.get(
        "SYSMOBENCH_DATA_DIR"
    )


def test_the_manifest_lists_every_file_with_its_content_hash():
    committed = json.loads((CORPUS / "MANIFEST.json").read_text())["files"]
    assert committed == manifest.build(CORPUS)


def test_the_corpus_stays_small():
    size = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    assert size <= SIZE_LIMIT_BYTES


def test_no_tracked_file_reads_a_folder_beside_the_project():
    offenders = []
    for name in tracked_files():
        path = ROOT / name
        if path.suffix not in {".py", ".sh", ".rs", ".toml", ".yaml", ".yml", ".go", ""}:
            continue
        if not path.is_file() or name.startswith("tests/test_corpus_ships"):
            continue
        text = path.read_text(errors="replace")
        if "../shared" in text or '/ "shared"' in text:
            offenders.append(name)
    assert offenders == []


@pytest.mark.parametrize(
    "contract",
    [c for c in load_all_contracts() if c.traces is not None and c.traces.source != "project"],
    ids=lambda c: c.slug,
)
def test_compressed_traces_cut_as_the_plain_files_do(contract, tmp_path):
    """Unpack the task's shipped traces into a plain folder: the same windows, the same version."""
    shipped = trace_files(contract, CORPUS)
    plain = tmp_path / "plain"
    for path in shipped:
        target = plain / path.relative_to(CORPUS)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(stored.read_bytes(path))
    assert any(stored.stored_path(p).name.endswith(".gz") for p in shipped) or all(
        p.is_file() for p in shipped
    )
    a = cut_with_summary(contract, CORPUS)
    b = cut_with_summary(contract, plain)
    assert [w["window_id"] for w in a.windows] == [w["window_id"] for w in b.windows]
    assert a.windows == b.windows
    assert corpus_version(contract.traces.format, shipped, trace_base(contract, CORPUS)) == (
        corpus_version(contract.traces.format, trace_files(contract, plain), plain)
    )


def test_a_trace_stored_both_ways_is_listed_once(tmp_path):
    (tmp_path / "a.ndjson").write_text('{"x": 1}\n')
    (tmp_path / "b.ndjson.gz").write_bytes(gzip.compress(b'{"x": 2}\n'))
    listed = stored.glob_logical(tmp_path, "*.ndjson")
    assert listed == [tmp_path / "a.ndjson", tmp_path / "b.ndjson"]
    assert stored.read_text(listed[1]) == '{"x": 2}\n'


@pytest.mark.tla
def test_a_copy_with_nothing_beside_it_imports_and_scores(tmp_path):
    """What a user who clones the public repository has: the tracked files, no ../shared."""
    project = tmp_path / "alone" / "sysmobench"
    for name in tracked_files():
        source = ROOT / name
        if not source.is_file():
            continue
        target = project / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    assert not (project.parent / "shared").exists()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "ENV_FILE": "",
        "DEBUG": "1",
        "SECRET_KEY": "a-test-key",
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
        "RQ_FORCE_INLINE": "1",
        "SYSMOBENCH_CACHE_DIR": os.environ.get("SYSMOBENCH_CACHE_DIR", "off"),
    }

    def manage(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=project, env=env, capture_output=True,
            text=True, timeout=900,
        )  # fmt: skip

    assert manage("migrate", "--noinput").returncode == 0
    imported = manage("import_benchmark")
    assert imported.returncode == 0, imported.stderr
    for contract in load_all_contracts():
        if contract.traces is not None:
            assert contract.slug in imported.stdout
    sample = manage("submit_sample", "--task", "spin")
    assert sample.returncode == 0, sample.stdout + sample.stderr
    report = manage(
        "shell", "-c",
        "from leaderboard.models import Run; r = Run.objects.get(); print(r.status, r.overall)",
    )  # fmt: skip
    status, overall = report.stdout.splitlines()[-1].split()
    assert status == "finished"
    assert float(overall) == pytest.approx(1.0)
