"""Rescoring approved runs under a new release, and the diff a maintainer reads before approving.

A rescoring never touches the original run: it makes a new Run of the same spec, adapter and cfg
(`rescore_of` = the original, the same model, task, submitter and review), queued on the
rescore queue, which a worker takes only when no submission waits (`scoring/queueing.py`). The
new run belongs to the release it is scored under, so it stays off the default board until
that release is approved. One `Rescore` row per (run, release) makes `manage.py rescore`
resumable and safe to run twice: a run with a pending or done row is not queued again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from leaderboard.models import PHASES, Release, Rescore, Run
from leaderboard.releases.identity import assign_release
from leaderboard.scoring import queueing


def snapshot(run: Run) -> dict[str, Any]:
    """What the diff compares: the overall, each phase's status and score, each action's
    passes per phase."""
    phases: dict[str, Any] = {}
    actions: dict[str, dict[str, list[int]]] = {}
    for result in run.phase_results.prefetch_related("action_results"):
        phases[result.phase] = {"status": result.status, "score": result.score}
        rows = {a.action: [a.passed, a.total] for a in result.action_results.all()}
        if rows:
            actions[result.phase] = rows
    release = run.release.name if run.release_id and run.release else None
    return {
        "run": run.pk,
        "release": release,
        "status": run.status,
        "overall": run.overall,
        "phases": phases,
        "actions": actions,
    }


def after_scoring(run: Run, **_: object) -> None:
    """Listens to `run_finished` (connected in LeaderboardConfig.ready): the run's release,
    and its rescoring record."""
    assign_release(run)
    if run.rescore_of_id is not None:
        Rescore.objects.filter(new_run=run).update(
            state=Rescore.State.DONE, new=snapshot(run), finished_at=timezone.now()
        )


def collect(release: Release) -> None:
    """Rescorings whose new run ended without `after_scoring` (failed, or finished before the
    hook existed) are settled from the run itself."""
    pending = release.rescores.filter(state=Rescore.State.PENDING, new_run__isnull=False)
    for record in pending.select_related("new_run"):
        new_run = record.new_run
        if new_run is None or not new_run.is_terminal:
            continue
        state = (
            Rescore.State.DONE if new_run.status == Run.Status.FINISHED else Rescore.State.FAILED
        )
        record.state, record.new, record.finished_at = state, snapshot(new_run), timezone.now()
        record.save(update_fields=["state", "new", "finished_at"])


def candidates(release: Release, task: str | None = None) -> Iterator[Run]:
    """Approved verified runs scored under another release (or before releases) that have no
    finished newer scoring and no pending or done rescoring under `release`."""
    runs = (
        Run.objects.finished()
        .verified()
        .filter(review=Run.Review.APPROVED)
        .exclude(release=release)
        .exclude(rescored_as__status=Run.Status.FINISHED)
        .exclude(
            rescores__release=release,
            rescores__state__in=[Rescore.State.PENDING, Rescore.State.DONE],
        )
    )
    if task:
        runs = runs.filter(task__slug=task)
    return runs.select_related("task", "model").order_by("pk").iterator()


@dataclass
class Progress:
    queued: int = 0
    pending: int = 0
    done: int = 0
    failed: int = 0

    def line(self, release: Release) -> str:
        return (
            f"rescore under {release.name}: {self.queued} queued now, {self.pending} pending, "
            f"{self.done} done, {self.failed} failed"
        )


def progress(release: Release) -> Progress:
    counts = release.rescores.values_list("state", flat=True)
    states = list(counts)
    return Progress(
        pending=states.count(Rescore.State.PENDING),
        done=states.count(Rescore.State.DONE),
        failed=states.count(Rescore.State.FAILED),
    )


def rescore(
    release: Release,
    task: str | None = None,
    dry_run: bool = False,
    say: Callable[[str], None] = lambda _: None,
) -> Progress:
    """Queue a rescoring of every candidate run; prints one line per run and returns the
    counts. A dry run lists what would be queued and writes nothing."""
    collect(release)
    queued = 0
    for run in candidates(release, task):
        what = f"run {run.pk} ({run.model.slug} / {run.task.slug}, {_release_name(run)})"
        if dry_run:
            say(f"would rescore {what}")
            queued += 1
            continue
        new_run = queue_rescore(run, release)
        if new_run is not None:
            queued += 1
            say(f"queued {what} as run {new_run.pk}")
    result = progress(release)
    result.queued = queued
    return result


def _release_name(run: Run) -> str:
    return f"scored under {run.release.name}" if run.release else "before releases"


def queue_rescore(run: Run, release: Release) -> Run | None:
    """The new run and its record, queued on commit; None when another rescore took it."""
    try:
        with transaction.atomic():
            record, created = Rescore.objects.select_for_update().get_or_create(
                run=run, release=release, defaults={"old": snapshot(run)}
            )
            if not created and record.state != Rescore.State.FAILED:
                return None
            new_run = copy_for_rescore(run)
            record.new_run, record.state, record.new = new_run, Rescore.State.PENDING, {}
            record.save(update_fields=["new_run", "state", "new"])
            queueing.enqueue_run(new_run)
    except IntegrityError:
        return None  # a concurrent `rescore` made the record first
    return new_run


def copy_for_rescore(run: Run) -> Run:
    """The same submission, queued again; the review is the original's (a maintainer approved
    this spec), while the board keeps it off until its release is approved."""
    return Run.objects.create(
        model=run.model,
        task=run.task,
        spec_text=run.spec_text,
        adapter_text=run.adapter_text,
        cfg_text=run.cfg_text,
        submitter=run.submitter,
        provenance=run.provenance,
        review=run.review,
        published_at=run.published_at,
        reviewed_at=run.reviewed_at,
        reviewed_by=run.reviewed_by,
        review_reason=run.review_reason,
        rescore_of=run,
    )


def diff(release: Release) -> list[dict[str, Any]]:
    """Per rescored run: old and new per phase and per action, and what moved."""
    collect(release)
    rows = []
    records = release.rescores.select_related("run__model", "run__task").order_by("run_id")
    for record in records:
        old, new = record.old or {}, record.new or {}
        rows.append(
            {
                "run": record.run_id,
                "new_run": record.new_run_id,
                "model": record.run.model.slug,
                "task": record.run.task.slug,
                "state": record.state,
                "old_release": old.get("release"),
                "overall": {"old": old.get("overall"), "new": new.get("overall")},
                "phases": _phase_pairs(old, new),
                "actions": _action_pairs(old, new),
                "moved": moved(old, new) if record.state == Rescore.State.DONE else [],
            }
        )
    return rows


def _phase_pairs(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    before, after = old.get("phases", {}), new.get("phases", {})
    return {p: {"old": before.get(p), "new": after.get(p)} for p in PHASES}


def _action_pairs(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    before, after = old.get("actions", {}), new.get("actions", {})
    pairs: dict[str, Any] = {}
    for phase in PHASES:
        names = sorted(set(before.get(phase, {})) | set(after.get(phase, {})))
        if names:
            pairs[phase] = {
                a: {"old": before.get(phase, {}).get(a), "new": after.get(phase, {}).get(a)}
                for a in names
            }
    return pairs


def moved(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Plain lines: each phase or action whose result differs, and the overall."""
    lines = []
    if old.get("overall") != new.get("overall"):
        lines.append(f"overall {_num(old.get('overall'))} → {_num(new.get('overall'))}")
    for phase, pair in _phase_pairs(old, new).items():
        if pair["old"] != pair["new"]:
            lines.append(f"{phase} {_phase_text(pair['old'])} → {_phase_text(pair['new'])}")
    for phase, actions in _action_pairs(old, new).items():
        for action, pair in actions.items():
            if pair["old"] != pair["new"]:
                lines.append(f"{phase} {action} {_count(pair['old'])} → {_count(pair['new'])}")
    return lines


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _phase_text(phase: dict[str, Any] | None) -> str:
    if not phase:
        return "absent"
    return f"{_num(phase.get('score'))} ({phase.get('status')})"


def _count(pair: list[int] | None) -> str:
    return "absent" if not pair else f"{pair[0]}/{pair[1]}"


def changed_runs(release: Release) -> int:
    return sum(1 for row in diff(release) if row["moved"])
