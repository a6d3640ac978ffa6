"""Import the benchmark into the database: Task rows from our contracts, trace windows from data.

A trace corpus is identified by the sha256 of its source files' bytes and the cutter version, so
importing the same data twice finds the same version and writes nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from django.db import transaction
from django.utils import timezone

from evaluation.surface import (
    Contract,
    CutResult,
    Traces,
    Window,
    WindowFormatError,
    cut_with_summary,
    cutter_version,
    load_all_contracts,
    read_trace_bytes,
    trace_base,
    trace_files,
)
from leaderboard.models import Task, TraceCorpus, TraceWindow

NO_TRACE_DATA = "no trace data"


@dataclass
class TaskImport:
    slug: str
    task_status: str  # created | updated | unchanged
    corpus_status: str  # imported | unchanged | no trace data
    version: str = ""
    window_count: int = 0
    counts_by_action: dict[str, int] = field(default_factory=dict)
    unmapped: dict[str, int] = field(default_factory=dict)
    no_traces_reason: str = ""
    error: str = ""


def task_fields(contract: Contract) -> dict[str, object]:
    return {
        "name": contract.name,
        "system": contract.system,
        "kind": contract.kind,
        "language": contract.language,
        "module_name": contract.module,
        "source_repository": contract.source.repository,
        "source_commit": contract.source.commit,
        "source_files": list(contract.source.files),
        "description": contract.description,
        "contract_version": contract.version,
        "position": contract.position,
    }


def sync_task(contract: Contract) -> tuple[Task, str]:
    """Create or update the Task row for a contract; saves only when something differs."""
    fields = task_fields(contract)
    task, created = Task.objects.get_or_create(slug=contract.slug, defaults=fields)
    if created:
        return task, "created"
    changed = [name for name, value in fields.items() if getattr(task, name) != value]
    for name in changed:
        setattr(task, name, fields[name])
    if changed:
        task.save(update_fields=changed)
    return task, "updated" if changed else "unchanged"


def corpus_version(trace_format: str, files: list[Path], base: Path) -> str:
    """The cutter's version, then each file's path under `base` and its bytes."""
    digest = hashlib.sha256(cutter_version(trace_format).encode())
    base = base.resolve()
    for path in files:
        digest.update(b"\0" + str(path.resolve().relative_to(base)).encode() + b"\0")
        digest.update(read_trace_bytes(path))
    return digest.hexdigest()


def import_corpus(task: Task, contract: Contract, data_dir: Path) -> TaskImport:
    report = TaskImport(slug=contract.slug, task_status="", corpus_status=NO_TRACE_DATA)
    traces = contract.traces
    if traces is None:
        report.no_traces_reason = contract.no_traces_reason
        return report
    files = trace_files(contract, data_dir)
    version = corpus_version(traces.format, files, trace_base(contract, data_dir))
    report.version = version
    existing = TraceCorpus.objects.filter(task=task, version=version).first()
    if existing is not None and existing.window_count == 0:
        # Stored before empty corpora were refused: still unusable, still an error.
        raise WindowFormatError(f"{contract.slug}: the stored corpus {version[:12]} has no windows")
    if existing is not None:
        _make_current(task, existing)
        report.corpus_status = "unchanged"
        report.window_count = existing.window_count
        report.counts_by_action = dict(existing.counts_by_action)
        return report
    cut = cut_with_summary(contract, data_dir)
    if not cut.windows:
        raise WindowFormatError(_no_windows_reason(contract.slug, traces, cut))
    with transaction.atomic():
        corpus = TraceCorpus.objects.create(
            task=task,
            version=version,
            source=", ".join(traces.paths),
            window_count=len(cut.windows),
            counts_by_action=dict(sorted(cut.actions.items())),
        )
        TraceWindow.objects.bulk_create(
            (_window_row(corpus, w) for w in cut.windows), batch_size=500
        )
    report.corpus_status = "imported"
    report.window_count = len(cut.windows)
    report.counts_by_action = dict(sorted(cut.actions.items()))
    report.unmapped = dict(sorted(cut.unmapped.items()))
    return report


def _no_windows_reason(slug: str, traces: Traces, cut: CutResult) -> str:
    """Why a contract that names traces got no window: a task whose conformance phase would
    silently become n/a (and hand its weight to the other phases) must not import."""
    where = f"{slug}: the contract names traces ({', '.join(traces.paths)})"
    if cut.unmapped:
        events = ", ".join(f"{e} ({n})" for e, n in sorted(cut.unmapped.items()))
        return (
            f"{where} but every event is unmapped, so no window is left: {events}; map "
            "them to the contract's target actions"
        )
    return f"{where} but its {len(cut.files)} trace file(s) yield no window"


def _make_current(task: Task, corpus: TraceCorpus) -> None:
    # Data rolled back to an older version: that corpus becomes the current (newest) one again.
    latest = task.corpora.order_by("-imported_at", "-pk").first()
    if latest is not None and latest.pk != corpus.pk:
        corpus.imported_at = timezone.now()
        corpus.save(update_fields=["imported_at"])


def _window_row(corpus: TraceCorpus, window: Window) -> TraceWindow:
    return TraceWindow(
        corpus=corpus,
        window_id=window["window_id"],
        trace_id=window["trace_id"],
        action=window["action"],
        event=window.get("event", ""),
        actor=window.get("actor") or "",
        pre_state=window["pre_state"],
        post_state=window["post_state"],
        input=window.get("input"),
    )


def import_benchmark(data_dir: Path | str, root: Path | str | None = None) -> list[TaskImport]:
    """Sync every contract's Task row and import its windows; one transaction per task."""
    data_dir = Path(data_dir).resolve()
    reports = []
    for contract in load_all_contracts(root):
        with transaction.atomic():
            task, task_status = sync_task(contract)
        try:
            report = import_corpus(task, contract, data_dir)
        except WindowFormatError as exc:
            # One task's bad data must not block the others; the command reports it and fails.
            report = TaskImport(slug=contract.slug, task_status="", corpus_status="error")
            report.error = str(exc)
        report.task_status = task_status
        reports.append(report)
    return reports


def current_corpus(task: Task) -> TraceCorpus | None:
    return task.corpora.order_by("-imported_at", "-pk").first()


# A window as the cutters produce it (docs/ARCHITECTURE.md, "Interfaces").
WINDOW_FIELDS = (
    "window_id",
    "trace_id",
    "action",
    "event",
    "actor",
    "pre_state",
    "post_state",
    "input",
)


def canonical_windows(corpus: TraceCorpus) -> list[Window]:
    """The corpus's windows as the cutters produced them, in import order; what the scorer
    scores against, and what `export_windows` writes for a scorer container."""
    rows = TraceWindow.objects.filter(corpus=corpus).order_by("id").values(*WINDOW_FIELDS)
    # The columns are the window's keys (WINDOW_FIELDS); a window without input has none.
    return [
        cast(Window, {k: v for k, v in row.items() if not (k == "input" and v is None)})
        for row in rows
    ]
