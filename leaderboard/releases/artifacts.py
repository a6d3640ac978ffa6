"""Downloads that let a result be re-checked without the site: a run's bundle (zip), a
release's dataset (JSON Lines, one public run per line), and a retired release's held-out
traces (zip, `heldout_archive`: packed only when the release is retired, and only if the
folder is the one the release recorded, file for file).

What the scorer does not store is named in the manifest rather than left out silently: the
generated TLA+ modules and the raw SANY/TLC output are not kept (the phases keep the parsed
messages, verdicts and TLC run summaries in their details, which the bundle holds).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.utils import timezone

from evaluation.surface import Contract, heldout_files, read_trace_bytes
from leaderboard.models import Release, Run
from leaderboard.releases.identity import heldout_hash
from leaderboard.scoring.export import run_as_dict

NOT_STORED = {
    "generated_modules": "not stored by the scorer: each phase builds its modules beside the "
    "spec in a sandbox directory that is deleted after the call",
    "tool_logs": "not stored raw: the phases keep TLC's and SANY's parsed messages, errors and "
    "run summaries in each phase's details (phases/<phase>.json)",
}


class HeldoutMismatch(ValueError):
    """The folder is not the held-out set the release recorded (the message says which task)."""


def heldout_archive(release: Release, folder: Path, contracts: list[Contract]) -> bytes | None:
    """A zip of the held-out trace files of every task the release recorded a held-out hash
    for, in the data folder's layout, with a manifest of the hashes; None when it had none."""
    recorded = {
        slug: task["heldout_sha256"]
        for slug, task in (release.components.get("tasks") or {}).items()
        if task.get("heldout_sha256")
    }
    if not recorded:
        return None
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for contract in contracts:
            if contract.slug not in recorded:
                continue
            if heldout_hash(contract, folder) != recorded[contract.slug]:
                raise HeldoutMismatch(
                    f"{contract.slug}: the held-out traces in {folder} are not the ones release "
                    f"{release.name} recorded (hash {recorded[contract.slug][:12]})"
                )
            for path in heldout_files(contract, folder):
                archive.writestr(path.relative_to(folder).as_posix(), read_trace_bytes(path))
        note = {"release": release.name, "identity": release.identity, "heldout_sha256": recorded}
        archive.writestr("MANIFEST.json", _json(note))
    return out.getvalue()


def manifest(run: Run, data: dict[str, Any]) -> dict[str, Any]:
    fingerprint = run.fingerprint or {}
    return {
        "run": run.pk,
        "task": run.task.slug,
        "model": run.model.slug,
        "provenance": run.provenance,
        "status": run.status,
        "review": run.review,
        "release": run.release.name if run.release else None,
        "release_identity": run.release.identity if run.release else None,
        "rescore_of": run.rescore_of_id,
        "fingerprint": fingerprint,
        "hashes": {
            key: fingerprint.get(key)
            for key in ("contract_version", "windows_sha256", "adapter_sha256", "cfg_sha256")
        },
        "policy": {
            "weights": fingerprint.get("weights"),
            "budgets": fingerprint.get("budgets"),
            "counting_rule": "the best verified finished run of a model on a task counts",
        },
        "overall": data["overall"],
        "overall_unrounded": data["overall_unrounded"],
        "published_source": run.source or None,
        "not_stored": NOT_STORED,
        "made_at": timezone.now().isoformat(),
    }


def bundle(run: Run) -> bytes:
    """The run's zip: manifest, inputs, per-phase details, windows and invariants."""
    data = run_as_dict(run)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        put = archive.writestr
        put("manifest.json", _json(manifest(run, data)))
        put(f"spec/{run.task.module_name or 'spec'}.tla", run.spec_text)
        if run.cfg_text:
            put("spec/submitted.cfg", run.cfg_text)
        if run.adapter_text:
            put("spec/adapter.yaml", run.adapter_text)
        for exported in data["phases"]:
            phase: dict[str, Any] = dict(exported)
            windows = phase.pop("windows", [])
            invariants = phase.pop("invariants", [])
            put(f"phases/{phase['phase']}.json", _json(phase))
            if windows:
                put(f"phases/{phase['phase']}-windows.jsonl", _lines(windows))
            if invariants:
                put(f"phases/{phase['phase']}-invariants.json", _json(invariants))
        if run.provenance == Run.Provenance.REPORTED:
            put("published.json", _json(_published(run, data)))
    return out.getvalue()


def _published(run: Run, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "source": run.source,
        "overall": data["overall"],
        "phases": {p["phase"]: p["score"] for p in data["phases"]},
    }


def dataset_lines(release: Release) -> Iterator[str]:
    """Every public finished run of the release, one JSON object per line, oldest first."""
    runs = (
        Run.objects.public()
        .finished()
        .filter(release=release)
        .select_related("model", "task", "submitter", "release")
        .order_by("pk")
    )
    for run in runs.iterator(chunk_size=50):
        row = run_as_dict(run)
        row["release"] = release.name
        yield json.dumps(row, sort_keys=True, default=str) + "\n"


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, default=str)


def _lines(rows: list[Any]) -> str:
    return "".join(json.dumps(r, sort_keys=True, default=str) + "\n" for r in rows)
