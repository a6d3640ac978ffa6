"""Near-duplicates are flagged (docs/decisions/0019-near-duplicates.md): the public spin reference
with its identifiers renamed, its comments gone and a definition moved, submitted with a renaming
adapter, is flagged as a near-duplicate of the reference (run page, review admin, run JSON); a
second submission of a spec is flagged as a near-duplicate of the first run; honest different specs
(the fidelity corpus, written by models for the original benchmark, and the tests' own attack specs)
are not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract
from evaluation.inputs.references import public_specs
from evaluation.tla.shape import NEAR_DUPLICATE, similarity, spec_shape
from leaderboard.models import Run
from leaderboard.scoring.jobs import evaluate_run
from leaderboard.scoring.likeness import flag_near_duplicates
from leaderboard.tasks.importing import sync_task
from tests.base import make_model, make_run, make_task, make_user
from tests.fidelity.corpus import CORPUS

TESTS = Path(__file__).resolve().parent
RENAMES = {
    "lockState": "held",
    "pc": "phase",
    "callType": "entry",
    "vars": "allVars",
    "TypeOK": "WellTyped",
    "Init": "Start",
    "Next": "Step",
    "Spec": "Behaviour",
    "StartLock": "BeginWait",
    "AcquireLock": "Take",
    "ReleaseLock": "Drop",
    "t": "th",
    "c": "kind",
}
ADAPTER = """\
variables:
  lockState: 'held'
  pc: 'phase'
  callType: 'entry'
actions:
  AcquireLock: 'Take(actor)'
  ReleaseLock: 'Drop(actor)'
behaviour: {init: Start, next: Step, specification: Behaviour}
"""


def spin_public() -> dict[str, str]:
    return public_specs(Path(settings.TASKS_DATA_DIR) / "spin")


def disguised_reference() -> str:
    """The spin reference renamed, without its comments, its TypeOK moved to the end."""
    text = spin_public()["spin/reference/spin.tla"]
    text = re.sub(r"\(\*.*?\*\)|\\\*[^\n]*", "", text, flags=re.DOTALL)
    for old, new in RENAMES.items():
        text = re.sub(rf"(?<![A-Za-z0-9]){old}(?![A-Za-z0-9_])", new, text)
    typed = re.search(r"(?ms)^WellTyped ==.*?(?=^\w)", text)
    assert typed is not None
    text = text.replace(typed.group(0), "")
    return text.replace("\nBehaviour ==", f"\n{typed.group(0)}\nBehaviour ==", 1)


def test_the_disguised_reference_has_the_references_shape():
    reference = spec_shape(spin_public()["spin/reference/spin.tla"])
    copy = spec_shape(disguised_reference())
    assert copy.digest == reference.digest
    assert similarity(copy.sketch, reference.sketch) == 1.0


# Attacks that are a public reference with one definition changed: meant to be flagged.
FROM_A_REFERENCE = {("spin", "next_leaves_out_threads.tla"): "spin/reference/spin.tla"}


def _honest_specs() -> list[tuple[str, str, str]]:
    """(task, label, text): the fidelity corpus and the tests' own specs (tests/attacks)."""
    specs = [(e.task, e.name, e.spec_path.read_text()) for e in CORPUS]
    specs += [
        (p.parent.name, p.name, p.read_text())
        for p in sorted(TESTS.glob("attacks/*/*.tla"))
        if (p.parent.name, p.name) not in FROM_A_REFERENCE
    ]
    return specs


@pytest.mark.parametrize(("task", "name"), sorted(FROM_A_REFERENCE))
def test_an_attack_made_from_a_reference_is_like_it(task, name):
    shape = spec_shape((TESTS / "attacks" / task / name).read_text())
    public = public_specs(Path(settings.TASKS_DATA_DIR) / task)[FROM_A_REFERENCE[(task, name)]]
    assert similarity(shape.sketch, spec_shape(public).sketch) >= NEAR_DUPLICATE


@pytest.mark.parametrize(("task", "label", "text"), _honest_specs(), ids=lambda v: str(v)[:30])
def test_an_honest_different_spec_is_not_like_any_public_spec_of_its_task(task, label, text):
    shape = spec_shape(text)
    for name, public in public_specs(Path(settings.TASKS_DATA_DIR) / task).items():
        assert similarity(shape.sketch, spec_shape(public).sketch) < NEAR_DUPLICATE, name


def test_the_corpus_specs_of_one_task_are_not_alike():
    by_task: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for entry in CORPUS:
        sketch = spec_shape(entry.spec_path.read_text()).sketch
        by_task.setdefault(entry.task, []).append((entry.name, sketch))
    for entries in by_task.values():
        for i, (name, sketch) in enumerate(entries):
            for other, theirs in entries[i + 1 :]:
                assert similarity(sketch, theirs) < NEAR_DUPLICATE, (name, other)


@pytest.mark.django_db
def test_the_scoring_job_flags_the_disguised_reference_before_scoring(client):
    task, _ = sync_task(load_contract("spin"))  # no traces imported: the scoring itself fails
    alice = make_user("alice")
    run = make_run(
        make_model(owner=alice),
        task,
        spec_text=disguised_reference(),
        adapter_text=ADAPTER,
        submitter=alice,
        review=Run.Review.PENDING,
    )
    assert evaluate_run(run.pk) == Run.Status.FAILED
    run.refresh_from_db()
    assert run.similar_to == {"reference": "spin/reference/spin.tla", "similarity": 1.0}
    assert "near-duplicate of spin/reference/spin.tla" in run.log

    page = client.get(run.get_absolute_url()).content.decode()
    assert 'id="near-duplicate"' in page and "spin/reference/spin.tla" in page
    exported = client.get(f"/runs/{run.pk}.json").json()
    assert exported["similar_to"] == {"reference": "spin/reference/spin.tla", "similarity": 1.0}

    client.force_login(make_user("maintainer", is_staff=True, is_superuser=True))
    queue = client.get("/admin/leaderboard/run/?near_duplicate=yes&review__exact=pending")
    assert queue.status_code == 200
    assert "spin/reference/spin.tla (similarity 1.00)" in queue.content.decode()


@pytest.mark.django_db
def test_a_second_submission_of_a_spec_is_flagged_as_like_the_first_run():
    task = make_task("mutex")
    mutex = next(e for e in CORPUS if e.task == "mutex").spec_path.read_text()
    first = make_run(make_model("model-a"), task, spec_text=mutex)
    assert flag_near_duplicates(first) is None  # honest: like no public mutex spec
    second = make_run(make_model("model-b"), task, spec_text=mutex.replace("\n", "\n\n"))
    assert flag_near_duplicates(second) == {"run": first.pk, "similarity": 1.0}
    assert Run.objects.get(pk=second.pk).similar_to == {"run": first.pk, "similarity": 1.0}


@pytest.mark.django_db
def test_an_earlier_run_stored_before_shapes_is_measured_when_compared():
    task = make_task("mutex")
    mutex = next(e for e in CORPUS if e.task == "mutex").spec_path.read_text()
    first = make_run(make_model("model-a"), task, spec_text=mutex)
    assert first.shape_digest == ""
    second = make_run(make_model("model-b"), task, spec_text=mutex)
    assert flag_near_duplicates(second) == {"run": first.pk, "similarity": 1.0}
    first.refresh_from_db()
    assert first.shape_digest == spec_shape(mutex).digest


@pytest.mark.django_db
def test_rescorings_of_one_spec_are_not_flagged_as_copies_of_each_other():
    task = make_task("mutex")
    mutex = next(e for e in CORPUS if e.task == "mutex").spec_path.read_text()
    model = make_model("model-a")
    original = make_run(model, task, spec_text=mutex)
    rescored = make_run(model, task, spec_text=mutex, rescore_of=original)
    assert flag_near_duplicates(rescored) is None


def test_every_mutant_of_a_reference_is_flagged_as_like_it():
    """A one-rule edit of a public spec (the mutants) stays at or above the threshold."""
    for task_dir in sorted(Path(settings.TASKS_DATA_DIR).glob("*/reference")):
        specs = public_specs(task_dir.parent)
        references = [n for n in specs if "/mutants/" not in n]
        assert len(references) == 1, task_dir
        reference = spec_shape(specs[references[0]]).sketch
        for name, text in specs.items():
            assert similarity(spec_shape(text).sketch, reference) >= NEAR_DUPLICATE, name
