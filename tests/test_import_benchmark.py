"""import_benchmark: tasks from contracts, windows as a versioned corpus, idempotent."""

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from evaluation.inputs.contracts import TASKS_DATA_DIR, load_contract
from leaderboard.models import Task, TraceCorpus, TraceWindow
from tests.base import make_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def tasks_dir(tmp_path):
    """spin (with traces) and curp (without), so the test does not depend on other contracts."""
    root = tmp_path / "tasks"
    for slug in ("spin", "curp"):
        shutil.copytree(TASKS_DATA_DIR / slug, root / slug)
    return root


def _import(tasks_dir, data_dir=None) -> str:
    out = StringIO()
    call_command(
        "import_benchmark",
        data_dir=str(data_dir or settings.SYSMOBENCH_DATA_DIR),
        tasks_dir=str(tasks_dir),
        stdout=out,
    )
    return out.getvalue()


def _snapshot():
    return (
        list(Task.objects.order_by("slug").values()),
        list(TraceCorpus.objects.order_by("pk").values()),
        list(TraceWindow.objects.order_by("pk").values_list("pk", "window_id", "action")),
    )


def test_import_creates_tasks_and_stores_counts(tasks_dir):
    output = _import(tasks_dir)
    assert "spin: task created; windows imported (304, version " in output
    assert "  AcquireLock: 152\n  ReleaseLock: 152\n" in output
    assert "(unmapped event TryAcquireBlocking: 96, not stored)" in output
    assert "curp: task created; no trace data" in output

    spin = Task.objects.get(slug="spin")
    contract = load_contract("spin", tasks_dir)
    assert (spin.name, spin.module_name, spin.position) == (contract.name, "spin", 1)
    assert spin.contract_version == contract.version
    assert spin.description == contract.description
    corpus = spin.corpora.get()
    assert corpus.window_count == 304
    assert corpus.counts_by_action == {"AcquireLock": 152, "ReleaseLock": 152}
    assert len(corpus.version) == 64
    windows = corpus.windows.all()
    assert windows.count() == 304
    assert windows.filter(action="AcquireLock", event="AcquireSuccess").count() == 152
    last = windows.get(window_id="399")
    assert (last.trace_id, last.action, last.actor) == ("trace_15", "ReleaseLock", "0")
    assert last.pre_state["pc"] == {"0": "locked", "1": "idle", "2": "idle"}


def test_second_import_changes_nothing(tasks_dir):
    _import(tasks_dir)
    before = _snapshot()
    output = _import(tasks_dir)
    assert _snapshot() == before
    assert "spin: task unchanged; windows unchanged (304" in output
    assert "curp: task unchanged; no trace data" in output


def test_no_trace_task_has_no_corpus(tasks_dir):
    _import(tasks_dir)
    assert not TraceCorpus.objects.filter(task__slug="curp").exists()
    assert not load_contract("curp", tasks_dir).has_traces


def test_existing_task_row_is_updated_not_duplicated(tasks_dir):
    make_task("spin", name="old name", position=9)
    output = _import(tasks_dir)
    assert "spin: task updated" in output
    assert Task.objects.filter(slug="spin").count() == 1
    assert Task.objects.get(slug="spin").name == "Asterinas spinlock"


def test_changed_data_is_a_new_corpus_version(tasks_dir, tmp_path):
    data = tmp_path / "data"
    source = Path(settings.SYSMOBENCH_DATA_DIR) / "windows" / "spin" / "action_windows.jsonl"
    target = data / "windows" / "spin" / "action_windows.jsonl"
    target.parent.mkdir(parents=True)
    lines = source.read_text().splitlines()
    target.write_text("\n".join(lines[:10]) + "\n")
    _import(tasks_dir, data)
    first = TraceCorpus.objects.get(task__slug="spin")
    target.write_text("\n".join(lines[:20]) + "\n")
    _import(tasks_dir, data)
    assert TraceCorpus.objects.filter(task__slug="spin").count() == 2
    latest = TraceCorpus.objects.filter(task__slug="spin").exclude(pk=first.pk).get()
    assert latest.version != first.version
    assert latest.window_count > first.window_count


def test_missing_data_folder_is_an_error(tasks_dir, tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="data folder not found"):
        _import(tasks_dir, tmp_path / "nowhere")


def test_project_traces_are_read_from_the_project_not_the_data_folder(tmp_path):
    """mutex's contract names traces our harness committed (traces.source: project): they import
    whatever data folder is given, and the corpus version does not depend on that folder."""
    root = tmp_path / "tasks"
    shutil.copytree(TASKS_DATA_DIR / "mutex", root / "mutex")
    empty = tmp_path / "empty-data"
    empty.mkdir()
    output = _import(root, empty)
    corpus = TraceCorpus.objects.get(task__slug="mutex")
    assert f"mutex: task created; windows imported ({corpus.window_count}, version " in output
    assert set(corpus.counts_by_action) == {"AcquireLock", "TryAcquireLock", "ReleaseLock"}
    assert sum(corpus.counts_by_action.values()) == corpus.window_count > 0
    assert corpus.source == "harnesses/asterinas/traces/mutex/trace_*.jsonl"
    assert "mutex: task unchanged; windows unchanged" in _import(root)
