"""Symmetry probes (docs/decisions/0014-symmetry-probes.md): where a contract declares its actors
symmetric, P3 also checks every trace with the actor ids rotated, and the copies count like the
originals; a spec that memorised which thread did what fails them."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.conf import settings

from evaluation.inputs.contracts import ContractError, load_contract
from evaluation.pipeline import score_spec
from evaluation.windows import cut_windows
from evaluation.windows.symmetry import SUFFIX, probes, rotation, with_probes
from tests.heldout_support import THREADS, lookup_table_spec


@pytest.fixture
def spin():
    return load_contract("spin")


@pytest.fixture
def public(spin):
    return cut_windows(spin, settings.SYSMOBENCH_DATA_DIR)


def test_the_thread_tasks_declare_their_threads_symmetric():
    for task in ("spin", "mutex", "rwmutex"):
        assert load_contract(task).traces.symmetric_actors == THREADS


def test_a_probe_renames_the_actor_everywhere_it_stands(spin, public):
    window = public[0]
    mapping = rotation(THREADS, str(window["trace_id"]))
    assert all(mapping[a] != a for a in THREADS)  # a rotation, never the identity
    probe = probes(spin, [window])[0]
    assert probe["actor"] == mapping[window["actor"]]
    for side in ("pre_state", "post_state"):
        pc = window[side]["pc"]
        assert probe[side]["pc"] == {mapping[t]: v for t, v in pc.items()}
        assert probe[side]["lockState"] == window[side]["lockState"]
    assert probe["window_id"] == f"{window['window_id']}{SUFFIX}"
    assert probe["action"] == window["action"]


def test_probes_are_the_same_on_every_scoring(spin, public):
    assert probes(spin, public) == probes(spin, public)
    assert len(with_probes(spin, public)) == 2 * len(public)


def test_a_contract_without_the_declaration_gets_no_probes(spin, public):
    plain = replace(spin, traces=replace(spin.traces, symmetric_actors=()))
    assert with_probes(plain, public) == public


def test_a_declaration_of_one_actor_is_refused(tmp_path):
    folder = tmp_path / "spin"
    folder.mkdir()
    source = settings.TASKS_DATA_DIR / "spin"
    text = (source / "task.yaml").read_text().replace('["0", "1", "2"]', '["0"]')
    (folder / "task.yaml").write_text(text)
    (folder / "description.md").write_text((source / "description.md").read_text())
    with pytest.raises(ContractError, match="symmetric_actors"):
        load_contract("spin", tmp_path)


@pytest.mark.tla
def test_a_table_of_which_thread_did_what_fails_the_probes(spin, public):
    # Spin's public rows are symmetric already (a table of all of them passes their rotations:
    # measured, 290 of 304 either way); a table of thread "0"'s steps is what probes catch.
    mine = [w for w in public if w["actor"] == "0"]
    table = lookup_table_spec(spin, mine, {"callType": dict.fromkeys(THREADS, "none")})
    report = score_spec(table, spin, mine, phases=["syntax", "runtime", "conformance"])
    p3 = report.outcomes["conformance"]
    verdicts = {w.window_id: w.verdict for w in p3.windows}
    # The same step by another thread: the table took it as recorded, not as rotated.
    lost = [
        k
        for k, v in verdicts.items()
        if k.endswith(SUFFIX) and v != "pass" and verdicts[k.removesuffix(SUFFIX)] == "pass"
    ]
    assert lost
    # Followed from Init, the table cannot explain the other threads' unlogged steps either.
    assert p3.score == 0
