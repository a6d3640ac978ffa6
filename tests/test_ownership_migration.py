"""The migration that introduces accounts, ownership and review puts existing rows under the new
rules: published figures stay on the board, unreviewed verified runs wait for a maintainer (public
but off the board), and a model goes to the one account that submitted all of its runs."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("leaderboard", "0001_initial")]
AFTER = [("leaderboard", "0002_accounts_ownership_review")]

pytestmark = pytest.mark.django_db(transaction=True)


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def back_to_latest():
    """Leave the database fully migrated for the tests that follow, whatever is merged later."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_existing_rows_are_sorted_into_owners_and_review_states(back_to_latest):
    apps = migrate(BEFORE)
    User = apps.get_model("auth", "User")
    Task = apps.get_model("leaderboard", "Task")
    Model = apps.get_model("leaderboard", "ModelUnderTest")
    Run = apps.get_model("leaderboard", "Run")
    alice = User.objects.create(username="alice")
    bob = User.objects.create(username="bob")
    task = Task.objects.create(slug="spin", name="spin", system="s", kind="concurrent",
                               language="Rust", module_name="spin",
                               source_repository="https://example.org")  # fmt: skip
    published = Model.objects.create(slug="published", name="P", organisation="O")
    alices = Model.objects.create(slug="alices", name="A", organisation="O")
    shared = Model.objects.create(slug="shared", name="S", organisation="O")
    anonymous = Model.objects.create(slug="anonymous", name="N", organisation="O")
    reported = Run.objects.create(model=published, task=task, provenance="reported",
                                  source="paper", status="finished")  # fmt: skip
    verified = Run.objects.create(model=published, task=task, submitter=alice, status="finished")
    Run.objects.create(model=alices, task=task, submitter=alice)
    Run.objects.create(model=alices, task=task, submitter=alice)
    Run.objects.create(model=shared, task=task, submitter=alice)
    Run.objects.create(model=shared, task=task, submitter=bob)
    Run.objects.create(model=anonymous, task=task)

    apps = migrate(AFTER)
    Model = apps.get_model("leaderboard", "ModelUnderTest")
    Run = apps.get_model("leaderboard", "Run")
    owners = dict(Model.objects.values_list("slug", "owner__username"))
    assert owners == {"published": None, "alices": "alice", "shared": None, "anonymous": None}
    assert Run.objects.get(pk=reported.pk).review == "approved"
    verified = Run.objects.get(pk=verified.pk)
    assert (verified.review, verified.published_at) == ("pending", verified.created_at)
    assert set(Run.objects.filter(provenance="verified").values_list("review", flat=True)) == {
        "pending"
    }
