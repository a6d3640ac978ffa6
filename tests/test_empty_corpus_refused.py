"""A task whose contract names traces but yields no window is an error, never P3 = n/a.

Issue 10, hole 5: an empty or fully unmapped corpus imported silently, and P3 then counted as
n/a, handing its 0.35 weight to the other phases: missing data raised scores.
"""

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from evaluation.inputs.contracts import TASKS_DATA_DIR, load_contract
from evaluation.pipeline import score_spec
from leaderboard.models import TraceCorpus

SPIN_SPEC = TASKS_DATA_DIR / "spin" / "reference" / "spin.tla"
WINDOWS = Path("windows") / "spin" / "action_windows.jsonl"


@pytest.fixture
def tasks_dir(tmp_path):
    root = tmp_path / "tasks"
    shutil.copytree(TASKS_DATA_DIR / "spin", root / "spin")
    return root


def data_with(tmp_path, lines: list[str]) -> Path:
    data = tmp_path / "data"
    (data / WINDOWS).parent.mkdir(parents=True)
    (data / WINDOWS).write_text("".join(line + "\n" for line in lines))
    return data


def import_spin(tasks_dir, data_dir) -> tuple[str, str]:
    out = StringIO()
    with pytest.raises(CommandError) as raised:
        call_command(
            "import_benchmark", data_dir=str(data_dir), tasks_dir=str(tasks_dir), stdout=out
        )
    return out.getvalue(), str(raised.value)


@pytest.mark.django_db
def test_a_fully_unmapped_corpus_is_an_import_error_naming_the_events(tasks_dir, tmp_path):
    real = (Path(settings.SYSMOBENCH_DATA_DIR) / WINDOWS).read_text().splitlines()
    unmapped = [line for line in real if '"TryAcquireBlocking"' in line]
    assert len(unmapped) == 96
    output, error = import_spin(tasks_dir, data_with(tmp_path, unmapped))
    assert "spin: task created; ERROR spin: the contract names traces" in output
    assert "every event is unmapped, so no window is left: TryAcquireBlocking (96)" in output
    assert "trace data could not be cut for: spin" in error
    assert not TraceCorpus.objects.exists()


@pytest.mark.django_db
def test_an_empty_trace_file_is_an_import_error(tasks_dir, tmp_path):
    output, _ = import_spin(tasks_dir, data_with(tmp_path, []))
    assert "its 1 trace file(s) yield no window" in output
    assert not TraceCorpus.objects.exists()


@pytest.mark.tla
def test_scoring_a_traced_task_without_windows_is_a_conformance_error_not_na():
    spin = load_contract("spin")
    report = score_spec(SPIN_SPEC.read_text(), spin, [], phases=["conformance"])
    p3 = report.outcomes["conformance"]
    assert (p3.status, p3.score) == ("error", None)
    assert "names traces but no trace window was given" in p3.details["error"]
