"""Results stored before the `credit` column get theirs from the reasons the old scorer wrote
(migration 0013): rows are made at 0012, as the scorer up to 3.1.0 saved them, with its exact
wording, and read back after the migration."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("leaderboard", "0012_release_retirement")]
AFTER = [("leaderboard", "0013_typed_credit")]

pytestmark = pytest.mark.django_db(transaction=True)

# (name, verdict, reason as scorer 3.1.0 wrote it, the credit it meant)
OLD_INVARIANTS = [
    ("Holds", "holds", "checked together with the other invariants", "credited"),
    ("Violated", "violated", "TLC reached a state that violates it", "failed"),
    ("Invented", "error",
     "not modelled by the spec: the adapter maps callType to an expression that reads no spec "
     "variable, so this invariant cannot be credited", "not_modelled"),
    ("Missing", "error",
     "not checked: it reads callType, which the spec neither declares nor defines, and no "
     "adapter maps it; declare callType in the spec or map it in an adapter "
     "(`variables: callType: <an expression over your variables>`)", "absent"),
    ("Empty", "error",
     'vacuous: within P2\'s bound the spec never reaches a state where pc takes "locked"',
     "vacuous"),
    ("Frozen", "error",
     "not a pass: TLC explored no state beyond the 1 initial state(s) (no step of Next was "
     "taken)", "vacuous"),
    ("Loose", "error",
     "not credited: the traces change lockState and pc through ReleaseLock, and ReleaseLock "
     "accepts transitions the system never makes (P3 specificity): an invariant kept by "
     "actions that allow any change that keeps it is no fact about the system", "unspecific"),
    ("Withheld", "error",
     "not credited: P3 ended with status error, so whether the actions that keep it are the "
     "system's is not known", "unspecific"),
    ("Crashed", "error", "TLC could not check it (exit code 255): out of memory", "error"),
    ("Slow", "timeout", "", "error"),  # a verdict scorers before 2.1 stored
]  # fmt: skip
OLD_WINDOWS = [("pass", "credited"), ("fail", "failed"), ("undecided", "undecided"),
               ("error", "error")]  # fmt: skip


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def back_to_latest():
    """Leave the database fully migrated for the tests that follow."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def _old_results(apps):
    Task = apps.get_model("leaderboard", "Task")
    Model = apps.get_model("leaderboard", "ModelUnderTest")
    Run = apps.get_model("leaderboard", "Run")
    PhaseResult = apps.get_model("leaderboard", "PhaseResult")
    task = Task.objects.create(slug="spin", name="spin", system="s", kind="concurrent",
                               language="Rust", module_name="spin",
                               source_repository="https://example.org")  # fmt: skip
    model = Model.objects.create(slug="m", name="M", organisation="O")
    run = Run.objects.create(model=model, task=task, status="finished")
    p3 = PhaseResult.objects.create(run=run, phase="conformance", status="ran", score=0.5)
    p4 = PhaseResult.objects.create(run=run, phase="invariant", status="ran", score=0.1)
    for i, (verdict, _) in enumerate(OLD_WINDOWS):
        apps.get_model("leaderboard", "WindowResult").objects.create(
            phase_result=p3, action="AcquireLock", trace_id="t", window_id=f"w{i}",
            verdict=verdict, reason="", pre_state={}, post_state={},
        )  # fmt: skip
    for name, verdict, reason, _ in OLD_INVARIANTS:
        apps.get_model("leaderboard", "InvariantResult").objects.create(
            phase_result=p4, name=name, kind="safety", verdict=verdict, reason=reason
        )


def test_old_rows_get_the_credit_their_reason_prefix_meant(back_to_latest):
    _old_results(migrate(BEFORE))
    apps = migrate(AFTER)
    InvariantResult = apps.get_model("leaderboard", "InvariantResult")
    WindowResult = apps.get_model("leaderboard", "WindowResult")
    assert dict(InvariantResult.objects.values_list("name", "credit")) == {
        name: credit for name, _, _, credit in OLD_INVARIANTS
    }
    assert dict(WindowResult.objects.values_list("verdict", "credit")) == dict(OLD_WINDOWS)
    # The reasons themselves are left as they were: prose for the reader.
    assert InvariantResult.objects.get(name="Empty").reason.startswith("vacuous: within")
