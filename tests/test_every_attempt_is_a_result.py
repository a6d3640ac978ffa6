"""Every attempt is a result (docs/decisions/0029-abuse-bounds.md): a spec SANY rejects is refused
first with a warning, and scored when its submitter asks ("score it anyway" on the form,
"score_anyway": true in the API): P1 partial, the later phases not reached, and the run counts in
its model's cell.

Only SANY's rejection can be overridden: a spec the scorer would refuse to run at all (a
forbidden construct, a disallowed EXTENDS, a missing contract name) stays refused.
"""

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from evaluation.inputs.contracts import load_contract
from leaderboard.accounts.tokens import create_token
from leaderboard.board.boards import compute_board
from leaderboard.models import ModelUnderTest, PhaseResult, Run
from leaderboard.scoring.jobs import evaluate_run
from leaderboard.tasks.importing import import_corpus, sync_task
from tests.base import make_model, make_user

SPIN = Path(__file__).resolve().parent.parent / "tasks_data" / "spin" / "reference" / "spin.tla"
# The reference spin spec with one definition SANY cannot parse (an unclosed parenthesis).
BROKEN = SPIN.read_text().replace("\nInit ==", "\nBroken == (1 +\n\nInit ==", 1)
# A spec the scorer would refuse outright, whatever the box says.
FORBIDDEN = BROKEN.replace("EXTENDS TLC, FiniteSets", "EXTENDS TLC, FiniteSets, IOUtils", 1)
LATER = ("runtime", "conformance", "invariant")


@pytest.fixture
def world(db):
    contract = load_contract("spin")
    task, _ = sync_task(contract)
    import_corpus(task, contract, Path(settings.SYSMOBENCH_DATA_DIR))
    user = make_user("carol")
    model = make_model("model-c", owner=user)
    return task, user, model


def form_post(user, **fields):
    client = Client()
    client.force_login(user)
    data = {"task": "spin", "model": "model-c", "spec_text": BROKEN, **fields}
    return client.post(reverse("submit"), data)


def api_post(user, **fields):
    raw, _ = create_token(user, "ci")
    client = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    body = {"task": "spin", "model": "model-c", "spec_text": BROKEN, **fields}
    return client.post(reverse("api_runs"), json.dumps(body), content_type="application/json")


def scored(run_id: int) -> dict[str, PhaseResult]:
    assert evaluate_run(run_id) == Run.Status.FINISHED
    return {r.phase: r for r in Run.objects.get(pk=run_id).phase_results.all()}


def assert_partial_and_not_reached(results: dict[str, PhaseResult]) -> None:
    assert 0 < results["syntax"].score < 1
    assert results["syntax"].status == PhaseResult.Status.RAN
    for phase in LATER:
        assert results[phase].status == PhaseResult.Status.SKIPPED
        assert results[phase].score == 0


@pytest.mark.tla
def test_the_form_warns_first_then_scores_it_when_asked(world):
    task, user, model = world
    warned = form_post(user)
    assert warned.status_code == 200
    assert not Run.objects.exists()
    assert warned.context["form"].offer_score_anyway
    assert "SANY rejected the module" in str(warned.context["form"].errors["spec_text"])
    assert b'id="score-anyway"' in warned.content

    submitted = form_post(user, score_anyway="on")
    run = Run.objects.get()
    assert submitted.status_code == 302 and submitted["Location"] == run.get_absolute_url()
    assert run.spec_text == BROKEN
    assert_partial_and_not_reached(scored(run.pk))

    # Published and approved like any run, it is its model's cell on the board.
    run.refresh_from_db()
    run.review = Run.Review.APPROVED
    run.save(update_fields=["review"])
    cell = compute_board().cell(model.pk, task.pk)
    assert cell["n"] == 1 and cell["run_id"] == run.pk
    assert 0 < cell["overall"] < 0.15


@pytest.mark.tla
def test_the_api_warns_first_then_scores_it_with_the_flag(world):
    _, user, _ = world
    warned = api_post(user)
    assert warned.status_code == 400
    error = warned.json()["error"]
    assert error["code"] == "sany_rejected" and error["score_anyway"] is True
    assert "SANY rejected the module" in error["fields"]["spec_text"][0]
    assert not Run.objects.exists()

    created = api_post(user, score_anyway=True)
    assert created.status_code == 201, created.json()
    assert_partial_and_not_reached(scored(created.json()["id"]))


@pytest.mark.tla
def test_only_sanys_rejection_can_be_overridden(world):
    _, user, _ = world
    # The attack: ask for scoring of a spec the scorer refuses to run.
    form = form_post(user, spec_text=FORBIDDEN, score_anyway="on")
    assert form.status_code == 200 and not form.context["form"].offer_score_anyway
    api = api_post(user, spec_text=FORBIDDEN, score_anyway=True)
    assert api.status_code == 400 and api.json()["error"]["code"] == "invalid"
    # A new model's name problem is not waived either.
    other = form_post(user, model="", new_model_name="", score_anyway="on")
    assert other.status_code == 200
    assert not Run.objects.exists()


@pytest.mark.tla
def test_the_flag_is_a_boolean_and_changes_nothing_for_a_good_spec(world):
    _, user, _ = world
    wrong = api_post(user, score_anyway="yes")
    assert wrong.status_code == 400 and "score_anyway" in wrong.json()["error"]["fields"]
    good = api_post(user, spec_text=SPIN.read_text(), score_anyway=True)
    assert good.status_code == 201
    assert ModelUnderTest.objects.count() == 1
