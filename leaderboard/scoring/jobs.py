"""The rq job: the bridge from the ORM / rq to the scorer (`evaluation.surface`).

rq runs `leaderboard.scoring.jobs.evaluate_run` by its dotted path
(`leaderboard/scoring/queueing.py`; `leaderboard.jobs` is an alias for jobs queued before).
`evaluate_run(run_id)` is idempotent: it claims the run with a conditional UPDATE (a second
call, or a duplicate rq job, finds nothing to claim and returns), writes each phase as soon as
it finishes with update_or_create on (run, phase), so a rerun after a crash overwrites rather
than duplicates, and ends the run FINISHED or FAILED with a reason a submitter can read.

Every write after the claim is conditional on the run still being RUNNING under this attempt
(`Run.hold`, `Run.finish`, `Run.fail`): when the reaper has re-queued the run meanwhile, the
attempt learns it lost (AttemptLost), stops scoring and writes nothing more. The attempt records
its process in its rq job's meta ("scorer") so the reaper (`leaderboard/scoring/reaper.py`) can
judge the work-horse itself, and stop it, rather than only its parent worker.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterable, Iterator
from datetime import timedelta
from typing import TypeVar

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, models, transaction
from django.utils import timezone
from rq import get_current_job
from rq.timeouts import JobTimeoutException

from evaluation.surface import (
    Adapter,
    Contract,
    ContractError,
    InfrastructureFailure,
    PhaseCrashed,
    PhaseOutcome,
    Window,
    WindowFormatError,
    cut_heldout,
    load_contract,
    parse_adapter,
)
from leaderboard.models import (
    REQUEUED,
    ActionResult,
    AttemptLost,
    InvariantResult,
    PhaseResult,
    Run,
    RunEvent,
    WindowResult,
)
from leaderboard.scoring import processes, queueing
from leaderboard.scoring.backends import ScorerUnavailable, score_run
from leaderboard.scoring.likeness import flag_near_duplicates
from leaderboard.tasks.importing import canonical_windows, current_corpus

log = logging.getLogger(__name__)


class RunSetupError(Exception):
    """The run cannot be scored as submitted or configured; the message is for the submitter."""


# ---------------------------------------------------------------------------------------------
# The job

LOST = "lost"
DATABASE_LOST = (OperationalError, InterfaceError)


def evaluate_run(run_id: int) -> str:
    """Score one run; returns the final status, 'skipped' when there was nothing to claim, or
    'lost' when the run was taken from this attempt (re-queued) before it ended."""
    # Before the claim: a horse that dies between taking the job and claiming is judged by
    # its own pid too (the reaper then gives the QUEUED run a new job).
    _announce_scorer()
    run = Run.objects.select_related("task").filter(pk=run_id).first()
    if run is None or not run.claim():
        log.info("run %s: nothing to claim (missing, or already taken)", run_id)
        return "skipped"
    try:
        return _score(run)
    except AttemptLost:
        log.warning("run %s: attempt %s lost the run; stopped scoring", run.pk, run.attempts)
        run.record(
            RunEvent.Event.STOPPED, f"attempt {run.attempts} stopped: the run was taken from it"
        )
        return LOST


def _announce_scorer() -> None:
    # Where this attempt runs, for the reaper: rq's parent worker may die while this process
    # (the work-horse) scores on, and only the work-horse's own pid says whether it does.
    job = get_current_job()
    if job is not None:
        job.meta["scorer"] = processes.identity()
        job.save_meta()


def _score(run: Run) -> str:
    log.info("run %s: attempt %s on %s", run.pk, run.attempts, _worker_label())
    run.record(RunEvent.Event.STARTED, f"attempt {run.attempts} started on {_worker_label()}")
    _flag(run)

    def on_phase(outcome: PhaseOutcome) -> None:
        save_phase(run, outcome)
        score = "-" if outcome.score is None else f"{outcome.score:.3f}"
        run.record(
            RunEvent.Event.PHASE,
            f"{outcome.phase}: {outcome.status}, score {score}, {outcome.duration_seconds:.1f} s",
        )

    try:
        contract, adapter, windows, corpus = _load_inputs(run)
        hidden = heldout_windows(contract)
        report = score_run(run, contract, adapter, windows, on_phase, hidden)
        # The corpus the windows came from, so the run can be matched to its release.
        report.fingerprint["corpus_version"] = corpus
    except (RunSetupError, ScorerUnavailable) as exc:
        return _fail(run, str(exc))
    except AttemptLost:
        raise
    except InfrastructureFailure as exc:
        return _retry_or_give_up(run, exc)
    except DATABASE_LOST as exc:
        # A lost connection is the machine's, like a killed JVM. The broken connection is
        # dropped so the retry opens a new one; if the database is still down the retry raises
        # too, the job fails, and the reaper re-queues the run once it answers again.
        connection.close()
        return _retry_or_give_up(
            run, InfrastructureFailure(f"the database connection was lost ({exc})")
        )
    except PhaseCrashed as exc:
        log.exception("run %s: %s", run.pk, exc)
        return _fail(run, f"{exc}. This is a scorer problem, not your spec; it will be looked at.")
    except JobTimeoutException:
        return _fail(
            run, "scoring took longer than the job time limit (RQ_JOB_TIMEOUT) and was stopped."
        )
    except Exception as exc:
        log.exception("run %s: internal error", run.pk)
        return _fail(run, f"internal error while scoring ({type(exc).__name__}: {exc}).")
    overall = report.overall
    if overall is None:  # only a pipeline told to skip phases leaves it unset; score_run does not
        return _fail(run, "internal error while scoring (no overall score).")
    if not run.finish(overall, report.fingerprint):
        raise AttemptLost(run.pk, run.attempts)
    run.record(RunEvent.Event.FINISHED, f"finished: overall {overall:.3f}")
    log.info("run %s: finished, overall %.3f", run.pk, overall)
    return Run.Status.FINISHED


def _flag(run: Run) -> None:
    """The near-duplicate flag (`scoring/likeness.py`), before the phases so that a run whose
    scoring fails is flagged too. It is a note to reviewers, never a score: a failure to
    measure it is logged and the scoring goes on."""
    try:
        similar = flag_near_duplicates(run)
    except Exception:  # noqa: BLE001 - a flag must not stop a scoring (a lost database is met again below)
        log.exception("run %s: the near-duplicate check failed", run.pk)
        return
    if similar:
        what = f"run {similar['run']}" if "run" in similar else similar["reference"]
        run.record(
            RunEvent.Event.NEAR_DUPLICATE,
            f"near-duplicate of {what} (similarity {similar['similarity']:.3f})",
        )


def _fail(run: Run, reason: str) -> str:
    if not run.fail(reason):
        raise AttemptLost(run.pk, run.attempts)
    run.record(RunEvent.Event.FAILED, f"failed: {reason}")
    log.info("run %s: failed: %s", run.pk, reason)
    return Run.Status.FAILED


def _retry_or_give_up(run: Run, failure: InfrastructureFailure) -> str:
    """The machine ended a check (a JVM killed from outside, a sandbox that could not be set
    up): that is never the spec's score. The run is queued again while attempts remain
    (SCORING_MAX_ATTEMPTS, shared with the reaper's), then ends FAILED, saying it could not be
    scored: a failed run has no overall and is on no board."""
    log.warning("run %s: attempt %s: %s", run.pk, run.attempts, failure)
    if run.attempts < settings.SCORING_MAX_ATTEMPTS:
        why = f"attempt {run.attempts}: {failure}; not the spec's result, {REQUEUED}"
        if not requeue_attempt(run, why):
            raise AttemptLost(run.pk, run.attempts)
        return Run.Status.QUEUED
    return _fail(
        run,
        f"could not be scored: {failure} (attempt {run.attempts} of "
        f"{settings.SCORING_MAX_ATTEMPTS}). This is the machine's failure, not your spec's: "
        "nothing was scored. Resubmit later, or contact the maintainers if it persists.",
    )


def requeue_attempt(run: Run, why: str) -> bool:
    """RUNNING -> QUEUED for this attempt (`Run.requeue`), said on the run's log, and queued
    again; False when the attempt no longer owns the run."""
    if not run.requeue():
        return False
    run.record(RunEvent.Event.REQUEUED, why)
    run.refresh_from_db()
    queueing.enqueue_run(run)
    return True


def _worker_label() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _load_inputs(run: Run) -> tuple[Contract, Adapter, list[Window], str | None]:
    try:
        contract = load_contract(run.task.slug, settings.TASKS_DATA_DIR)
    except ContractError as exc:
        raise RunSetupError(f"task contract error (a maintainer must fix it): {exc}") from exc
    try:
        adapter = parse_adapter(run.adapter_text, contract)
    except ContractError as exc:
        raise RunSetupError(f"adapter error: {exc}") from exc
    return contract, adapter, *_windows(run, contract)


def _windows(run: Run, contract: Contract) -> tuple[list[Window], str | None]:
    """The canonical windows of the task's newest trace corpus (none for a task without traces),
    and that corpus's version."""
    if not contract.has_traces:
        return [], None
    corpus = current_corpus(run.task)
    if corpus is None:
        raise RunSetupError(
            f"the task {contract.slug!r} has trace data but none has been imported into this "
            "service yet, so conformance cannot be scored; a maintainer must run "
            "`manage.py import_benchmark`, then rescore this run"
        )
    return canonical_windows(corpus), corpus.version


def heldout_windows(contract: Contract) -> list[Window] | None:
    """The task's windows in the instance's held-out set (settings.HELDOUT_DATA_DIR), cut at
    scoring time and never stored: None when the instance has no held-out set or it holds no
    traces of this task (P3 is then the public one)."""
    folder = settings.HELDOUT_DATA_DIR
    if folder is None or not contract.has_traces:
        return None
    try:
        return cut_heldout(contract, folder)
    except (WindowFormatError, OSError) as exc:
        raise RunSetupError(
            f"the held-out traces of {contract.slug!r} cannot be read (a maintainer must fix "
            f"them, then rescore this run): {exc}"
        ) from exc


# ---------------------------------------------------------------------------------------------
# Writing one phase


def save_phase(run: Run, outcome: PhaseOutcome) -> PhaseResult:
    """Persist a phase outcome and its drill-down rows in one transaction (overwriting a
    previous attempt's rows for the same phase), provided `run`'s attempt still owns the run:
    AttemptLost otherwise, with nothing written."""
    finished = timezone.now()
    duration = outcome.duration_seconds or 0.0
    with transaction.atomic():
        run.hold()
        result, _ = PhaseResult.objects.update_or_create(
            run=run,
            phase=outcome.phase,
            defaults={
                "status": outcome.status,
                "score": outcome.score,
                "details": outcome.details,
                "duration_seconds": duration,
                "started_at": finished - timedelta(seconds=duration),
                "finished_at": finished,
            },
        )
        result.action_results.all().delete()
        result.window_results.all().delete()
        result.invariant_results.all().delete()
        ActionResult.objects.bulk_create(_rows(ActionResult, result, outcome.actions))
        WindowResult.objects.bulk_create(
            _rows(WindowResult, result, outcome.windows), batch_size=500
        )
        InvariantResult.objects.bulk_create(_rows(InvariantResult, result, outcome.invariants))
    return result


# The outcome fields (evaluation/results.py) copied, under the same names, into each row model.
_ROW_FIELDS: dict[type[models.Model], tuple[str, ...]] = {
    ActionResult: ("action", "passed", "total", "detail"),
    WindowResult: (
        "action",
        "trace_id",
        "window_id",
        "actor",
        "pre_state",
        "post_state",
        "input",
        "verdict",
        "credit",
        "reason",
        "detail",
    ),
    InvariantResult: ("name", "kind", "verdict", "credit", "reason", "counterexample"),
}


RowModel = TypeVar("RowModel", ActionResult, WindowResult, InvariantResult)


def _rows(
    model: type[RowModel], result: PhaseResult, items: Iterable[object]
) -> Iterator[RowModel]:
    fields = _ROW_FIELDS[model]
    return (model(phase_result=result, **{f: getattr(i, f) for f in fields}) for i in items)
