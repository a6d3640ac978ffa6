"""What a release is made of, and which release a scored run belongs to.

A release's components are the scorer's version and TLA+ tools (`surface.scorer_identity`), and
per task its contract version (sha256 of task.yaml and description.md, all a contract reads) and
its trace corpus version (the cutter's version and the data files' bytes, as `import_benchmark`
names a corpus), and, when the instance has a held-out set (`HELDOUT_DATA_DIR`), the content
hash of each task's held-out trace files (`heldout_sha256`: never their content). The identity
is the sha256 of those, so two releases with the same identity would be the same scoring under
two names, which `make_release` refuses. A held-out set published with a retired release is
held out no more: `make_release` refuses a release that would reuse it.

A run is matched to a release by its fingerprint, which records the same things: the scorer and
tools, the contract version, and the corpus version the job scored against (`corpus_version`,
added by the job). Runs scored before the job recorded the corpus version are matched on the
windows hash the fingerprint always had, against the hash of the corpus imported when the
release was made.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from evaluation.surface import (
    Contract,
    ContractError,
    WindowFormatError,
    cut_heldout,
    heldout_files,
    load_all_contracts,
    read_trace_bytes,
    scorer_identity,
    trace_base,
    trace_files,
    windows_hash,
)
from leaderboard.models import Release, Run, Task
from leaderboard.models.marks import board_changed, invalidate_board_cache
from leaderboard.tasks.importing import canonical_windows, corpus_version, current_corpus

TOOL_KEYS = ("jar_sha256", "tlc_version", "sany_version")
# Per-task components derived from others (matching aids), left out of the identity.
DERIVED = ("windows_sha256", "heldout_windows_sha256")

# What a release may be called: it is part of URLs, file names and citations.
RELEASE_NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}"
RELEASE_NAME = re.compile(RELEASE_NAME_PATTERN)


class ReleaseError(ValueError):
    """A release that cannot be made or found; the message says what to do."""


def current_components(
    tasks_dir: Path | str | None = None,
    data_dir: Path | str | None = None,
    heldout_dir: Path | str | None = None,
) -> dict[str, Any]:
    """The components of the scoring this installation would do now."""
    tasks_dir = tasks_dir or settings.TASKS_DATA_DIR
    data_dir = Path(data_dir or settings.SYSMOBENCH_DATA_DIR)
    hidden_dir = heldout_dir or settings.HELDOUT_DATA_DIR
    scorer = scorer_identity()
    try:
        contracts = load_all_contracts(tasks_dir)
    except ContractError as exc:
        raise ReleaseError(f"a task contract does not load: {exc}") from exc
    tasks = {}
    for contract in contracts:
        corpus = None
        if contract.traces is not None:
            try:
                files = trace_files(contract, data_dir)
            except WindowFormatError as exc:
                raise ReleaseError(f"{contract.slug}: {exc}") from exc
            corpus = corpus_version(contract.traces.format, files, trace_base(contract, data_dir))
        tasks[contract.slug] = {
            "contract_version": contract.version,
            "corpus_version": corpus,
            "windows_sha256": _imported_windows_hash(contract.slug, corpus),
        }
        if hidden_dir is not None:
            tasks[contract.slug].update(_heldout(contract, Path(hidden_dir)))
    return {
        "scorer_version": scorer["scorer_version"],
        "tools": {key: scorer[key] for key in TOOL_KEYS},
        "tasks": tasks,
    }


def heldout_hash(contract: Contract, folder: Path) -> str | None:
    """sha256 of a task's held-out trace files (their paths in the folder and their bytes), or
    None when the folder holds none of the task's."""
    files = heldout_files(contract, folder)
    if not files:
        return None
    digest = hashlib.sha256()
    for path in files:
        content = hashlib.sha256(read_trace_bytes(path)).hexdigest()
        digest.update(f"{path.relative_to(folder).as_posix()}\0{content}\n".encode())
    return digest.hexdigest()


def _heldout(contract: Contract, folder: Path) -> dict[str, str]:
    # The content hash decides scores (part of the identity); the windows hash is what a run's
    # fingerprint records of it (a matching aid, left out of the identity like windows_sha256).
    content = heldout_hash(contract, folder)
    if content is None or contract.traces is None:
        return {}
    try:
        windows = cut_heldout(contract, folder) or []
    except WindowFormatError as exc:
        raise ReleaseError(f"{contract.slug}: the held-out traces do not cut: {exc}") from exc
    return {"heldout_sha256": content, "heldout_windows_sha256": windows_hash(windows)}


def _imported_windows_hash(slug: str, corpus: str | None) -> str | None:
    # The windows hash the fingerprint of a run scored against this corpus records; unknown
    # (None) when the database holds another corpus of the task, or none.
    if corpus is None:
        return windows_hash([])
    task = Task.objects.filter(slug=slug).first()
    stored = current_corpus(task) if task else None
    if stored is None or stored.version != corpus:
        return None
    return windows_hash(canonical_windows(stored))


def identity_of(components: dict[str, Any]) -> str:
    """sha256 of what decides a score: the windows hashes are derived data (a matching aid that
    depends on what is imported), so they are left out."""
    core = {
        "scorer_version": components["scorer_version"],
        "tools": components["tools"],
        "tasks": {
            slug: {k: v for k, v in task.items() if k not in DERIVED}
            for slug, task in components["tasks"].items()
        },
    }
    return hashlib.sha256(json.dumps(core, sort_keys=True).encode()).hexdigest()


def make_release(name: str, changelog: str, components: dict[str, Any] | None = None) -> Release:
    """Record the current identity under `name`, and attach to it the finished runs not yet in
    a release whose fingerprints match it."""
    name = name.strip()
    if not RELEASE_NAME.fullmatch(name):
        raise ReleaseError(
            "a release name is 1-40 letters, digits, '.', '_' or '-', starting with a letter or "
            "digit, e.g. 2026.12"
        )
    components = components if components is not None else current_components()
    refuse_published_heldout(components)
    identity = identity_of(components)
    same = Release.objects.filter(identity=identity).first()
    if same is not None:
        raise ReleaseError(
            f"release {same.name} already has this identity ({identity[:12]}): nothing that "
            "decides a score changed since; no new release was made"
        )
    try:
        with transaction.atomic():
            release = Release.objects.create(
                name=name, identity=identity, components=components, changelog=changelog.strip()
            )
    except IntegrityError as exc:
        raise ReleaseError(f"a release named {name!r} exists already") from exc
    attach_unreleased_runs(release)
    return release


def refuse_published_heldout(components: dict[str, Any]) -> None:
    """A held-out set published with a retired release is public now: the next release needs
    fresh held-out traces (a different hash), or its official P3 would be a public one."""
    for slug, task in components["tasks"].items():
        hidden = task.get("heldout_sha256")
        if hidden is None:
            continue
        for retired in Release.objects.filter(retired_at__isnull=False):
            if (retired.components.get("tasks", {}).get(slug) or {}).get(
                "heldout_sha256"
            ) == hidden:
                raise ReleaseError(
                    f"the held-out traces of {slug} were published with the retired release "
                    f"{retired.name}: make fresh ones (bin/make-traces with new private seeds) "
                    "before the next release"
                )


def matches(fingerprint: dict[str, Any], task_slug: str, components: dict[str, Any]) -> bool:
    """Whether a run of `task_slug` with this fingerprint was scored under these components."""
    if not fingerprint or fingerprint.get("scorer_version") != components["scorer_version"]:
        return False
    if any(fingerprint.get(key) != value for key, value in components["tools"].items()):
        return False
    task = components["tasks"].get(task_slug)
    if task is None or fingerprint.get("contract_version") != task["contract_version"]:
        return False
    if fingerprint.get("heldout_windows_sha256") != task.get("heldout_windows_sha256"):
        return False  # scored on another held-out set, or with one where the release has none
    if "corpus_version" in fingerprint:
        return bool(fingerprint["corpus_version"] == task["corpus_version"])
    return task["windows_sha256"] is not None and (
        fingerprint.get("windows_sha256") == task["windows_sha256"]
    )


def release_for(run: Run) -> Release | None:
    """The newest release whose components the run was scored under."""
    for release in Release.objects.order_by("-created_at", "-id"):
        if matches(run.fingerprint, run.task.slug, release.components):
            return release
    return None


def assign_release(run: Run) -> Release | None:
    """Store the run's release (called when a scoring finishes)."""
    release = release_for(run)
    if release is not None:
        Run.objects.filter(pk=run.pk).update(release=release)
        run.release = release
        board_changed(run.model_id, run.task_id)
    return release


def attach_unreleased_runs(release: Release) -> int:
    """The fallback for runs scored before releases existed: no data migration, a match at the
    moment a release is made. Runs nothing matches stay "before releases" (null)."""
    attached = 0
    runs = Run.objects.finished().verified().filter(release__isnull=True).select_related("task")
    for run in runs.iterator():
        if matches(run.fingerprint, run.task.slug, release.components):
            attached += Run.objects.filter(pk=run.pk).update(release=release)
    if attached:
        invalidate_board_cache()
    return attached


def find_release(name: str) -> Release:
    release = Release.objects.filter(name=name).first()
    if release is None:
        known = ", ".join(Release.objects.values_list("name", flat=True)) or "none yet"
        raise ReleaseError(f"no release named {name!r} (releases: {known})")
    return release


def current_release() -> Release:
    """The release whose identity is the scoring this installation does now."""
    identity = identity_of(current_components())
    release = Release.objects.filter(identity=identity).first()
    if release is None:
        raise ReleaseError(
            f"the current scoring identity ({identity[:12]}) is no release yet: run "
            "`manage.py make_release NAME --changelog TEXT` first"
        )
    return release


def release_note(run: Run) -> dict[str, str] | None:
    """What the run page says of the run's release; None before any release exists, and for
    runs not scored here."""
    if run.provenance != Run.Provenance.VERIFIED or not run.is_terminal:
        return None
    if not Release.objects.exists():
        return None
    default = Release.board_default()
    if run.release is None:
        text = "Scored before releases (or under an identity no release names)"
        if default is not None:
            text += f": not on the board of {default.name} until it is rescored"
        return {"text": text + ".", "name": "", "url": ""}
    name, url = run.release.name, run.release.get_absolute_url()
    if default is not None and default.pk == run.release.pk:
        return {"text": f"Scored under {name}, the board's release", "name": name, "url": url}
    if not run.release.approved:
        text = f"Scored under {name}, not yet approved: not on the default board yet"
        return {"text": text, "name": name, "url": url}
    return {"text": f"Scored under {name}, an older release", "name": name, "url": url}
