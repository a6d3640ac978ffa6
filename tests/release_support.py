"""A spin world scored for real under a contracts folder of the test's own (a copy of spin's
contract that a test may change), for the release, rescoring and artifact tests."""

from __future__ import annotations

import shutil
from pathlib import Path

from django.conf import settings

from evaluation.surface import load_contract
from leaderboard.models import Run
from leaderboard.scoring.jobs import evaluate_run
from leaderboard.tasks.importing import import_corpus, sync_task

TASKS_DATA = Path(__file__).resolve().parent.parent / "tasks_data"
SPIN_REFERENCE = TASKS_DATA / "spin" / "reference"


def spin_contracts(tmp_path: Path) -> Path:
    """A contracts folder holding only spin's contract, as tasks_data has it."""
    folder = tmp_path / "tasks"
    folder.mkdir()
    shutil.copytree(
        TASKS_DATA / "spin", folder / "spin", ignore=shutil.ignore_patterns("reference")
    )
    return folder


def import_spin(tasks_dir: Path):
    contract = load_contract("spin", tasks_dir)
    task, _ = sync_task(contract)
    import_corpus(task, contract, Path(settings.SYSMOBENCH_DATA_DIR))
    return task


def spec(name: str = "spin") -> str:
    path = SPIN_REFERENCE / f"{name}.tla"
    if not path.is_file():
        path = SPIN_REFERENCE / "mutants" / f"{name}.tla"
    return path.read_text()


def scored(run: Run) -> Run:
    """The run scored by the real job, in this process."""
    assert evaluate_run(run.pk) == Run.Status.FINISHED, Run.objects.get(pk=run.pk).failure_reason
    run.refresh_from_db()
    return run


def drop_invariant(tasks_dir: Path, name: str) -> None:
    """A contract change: the invariant `name` leaves spin's contract."""
    path = tasks_dir / "spin" / "task.yaml"
    lines = path.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == f"- name: {name}")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("- name:"))
    path.write_text("".join(lines[:start] + lines[end:]))
