"""The shared test world: two tasks, two models, two accounts, and helpers that make the rest.

Every test module builds on `WorldTestCase` (or calls the `make_*` helpers from a
pytest function with the `db` fixture) so that fixtures read the same everywhere.
"""

from django.contrib.auth import get_user_model
from django.test import TestCase

from evaluation.results import credit_of
from leaderboard.models import (
    ModelUnderTest,
    PhaseResult,
    Run,
    Task,
)


def make_task(slug="spin", **fields) -> Task:
    defaults = {
        "name": slug,
        "system": f"{slug} system",
        "kind": Task.Kind.CONCURRENT,
        "language": "Rust",
        "module_name": slug,
        "source_repository": f"https://example.org/{slug}",
    }
    defaults.update(fields)
    return Task.objects.create(slug=slug, **defaults)


def make_model(slug="model-a", **fields) -> ModelUnderTest:
    defaults = {"name": slug.replace("-", " ").title(), "organisation": "Org A"}
    defaults.update(fields)
    return ModelUnderTest.objects.create(slug=slug, **defaults)


def make_user(username="alice", password="pw-alice", **fields):
    return get_user_model().objects.create_user(username, password=password, **fields)


def make_run(model, task, phases: dict | None = None, **fields) -> Run:
    """A run with optional {phase: score} results; finished when phases are given.

    Approved (public, on the board) unless `review=` says otherwise: most tests are about what
    the public sees; the access-control tests make private and pending runs explicitly.
    """
    defaults = {
        "spec_text": f"---- MODULE {task.module_name} ----\n====\n",
        "review": Run.Review.APPROVED,
    }
    if phases is not None:
        defaults["status"] = Run.Status.FINISHED
    defaults.update(fields)
    run = Run.objects.create(model=model, task=task, **defaults)
    for phase, score in (phases or {}).items():
        make_phase_result(run, phase, score)
    if phases is not None and run.overall is None:
        run.overall = run.weighted_score()
        run.save(update_fields=["overall"])
    # Rows written straight to the database bypass Run.finish(); the board's signals mark them
    # (leaderboard/models/marks.py).
    return run


def make_phase_result(run, phase, score, status=PhaseResult.Status.RAN, **fields) -> PhaseResult:
    return PhaseResult.objects.create(run=run, phase=phase, score=score, status=status, **fields)


def make_action_result(phase_result, action, passed, total, **fields):
    from leaderboard.models import ActionResult

    return ActionResult.objects.create(
        phase_result=phase_result, action=action, passed=passed, total=total, **fields
    )


def make_window_result(phase_result, action="AcquireLock", verdict="fail", **fields):
    """A conformance window verdict; a failing one by default, over spin's two variables."""
    from leaderboard.models import WindowResult

    defaults = {
        "trace_id": "trace_01",
        "window_id": "w1",
        "actor": "1",
        "pre_state": {"lockState": "unlocked", "pc": {"0": "idle", "1": "acquiring"}},
        "post_state": {"lockState": "locked", "pc": {"0": "idle", "1": "locked"}},
    }
    defaults.update(fields)
    defaults.setdefault("credit", credit_of(verdict))
    return WindowResult.objects.create(
        phase_result=phase_result, action=action, verdict=verdict, **defaults
    )


def make_invariant_result(phase_result, name, verdict="holds", kind="safety", **fields):
    from leaderboard.models import InvariantResult

    """An invariant's row; its credit is its verdict's unless `credit=` says which rule decided."""
    fields.setdefault("credit", credit_of(verdict))
    return InvariantResult.objects.create(
        phase_result=phase_result, name=name, verdict=verdict, kind=kind, **fields
    )


def make_run_event(run, event, reason, attempt=None, **fields):
    """One step of a run's history (`Run.record` writes these), under the run's attempt unless
    `attempt=` says which."""
    from leaderboard.models import RunEvent

    attempt = run.attempts if attempt is None else attempt
    return RunEvent.objects.create(run=run, attempt=attempt, event=event, reason=reason, **fields)


class WorldTestCase(TestCase):
    """spin and etcd tasks; model A (LLM, Org A) owned by alice, model B (agent, Org B) owned by
    bob, and a maintainer (staff) account; published models have no owner (make_model's
    default)."""

    @classmethod
    def setUpTestData(cls):
        cls.spin = make_task("spin", position=1)
        cls.etcd = make_task("etcd", kind=Task.Kind.DISTRIBUTED, language="Go", position=2)
        cls.alice = make_user("alice")
        cls.bob = make_user("bob", password="pw-bob")
        cls.maintainer = make_user(
            "maintainer", password="pw-maintainer", is_staff=True, is_superuser=True
        )
        cls.model_a = make_model("model-a", organisation="Org A", owner=cls.alice)
        cls.model_b = make_model(
            "model-b", organisation="Org B", kind=ModelUnderTest.Kind.AGENT, owner=cls.bob
        )
