"""A test set nobody has seen (docs/decisions/0012-held-out-traces.md): with a held-out set, the
official P3 is scored on it, the public P3 is shown beside it, and a run that fits the public
windows but not the system is flagged and earns nothing beyond P1 and P2.

Every held-out set here is made inside the test, under its temporary folder: a simulated
spinlock's traces in SysMoBench's spin layout, or a split of a task's public trace files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings

from config.env import ImproperlyConfiguredEnv, env_path
from evaluation import cli
from evaluation.inputs.contracts import load_contract
from evaluation.phases import conformance, heldout
from evaluation.pipeline import score_spec
from evaluation.textreport import render
from evaluation.windows import WindowFormatError, cut_windows, stored
from evaluation.windows.heldout import cut_heldout
from tests.heldout_support import (
    THREADS,
    lookup_table_spec,
    simulate_spin,
    split_folder,
    with_permutations,
    write_spin_folder,
)

REFERENCE = Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla"
ONLY_P1_P2 = 0.30 + 1e-9


@pytest.fixture
def spin():
    return load_contract("spin")


@pytest.fixture
def public(spin):
    return cut_windows(spin, settings.SYSMOBENCH_DATA_DIR)


@pytest.fixture
def held_folder(tmp_path):
    return write_spin_folder(tmp_path / "heldout", simulate_spin(seed=7))


# ----------------------------------------------------------------------------- the folder


def test_a_held_out_folder_is_cut_like_the_data_folder(tmp_path):
    dqueue = load_contract("dqueue")
    folder = split_folder(dqueue, Path(settings.SYSMOBENCH_DATA_DIR), tmp_path / "h")
    windows = cut_heldout(dqueue, folder)
    assert windows, "a split of the public traces gives windows"
    every = cut_windows(dqueue, settings.SYSMOBENCH_DATA_DIR)
    assert 0 < len(windows) < len(every)  # some of the traces, cut by the same cutter
    assert {w["trace_id"] for w in windows} < {w["trace_id"] for w in every}


def test_a_folder_may_hold_only_some_tasks(tmp_path, held_folder):
    assert cut_heldout(load_contract("spin"), held_folder)
    assert cut_heldout(load_contract("dqueue"), held_folder) is None
    assert cut_heldout(load_contract("dqueue"), None) is None


def test_a_task_whose_public_traces_live_in_the_project_has_its_held_out_ones_in_the_folder(
    tmp_path,
):
    mutex = load_contract("mutex")
    assert cut_heldout(mutex, tmp_path) is None  # the project's public traces are not held out
    folder = split_folder(mutex, Path(settings.SYSMOBENCH_DATA_DIR), tmp_path / "h", every=5)
    assert cut_heldout(mutex, folder)


def test_harness_traces_and_windows_in_one_folder_must_not_share_a_window_id(tmp_path):
    spin = load_contract("spin")
    made = Path(settings.BASE_DIR) / "harnesses" / "asterinas" / "traces" / "spin"
    layout = tmp_path / "harnesses" / "asterinas" / "traces" / "spin"
    layout.mkdir(parents=True)
    (layout / "trace_01.jsonl").write_bytes(stored.read_bytes(made / "trace_01.jsonl"))
    first = cut_heldout(spin, tmp_path)[0]
    keys = ("window_id", "trace_id", "actor", "pre_state", "post_state")
    # SysMoBench's spin layout names the event in `action` (simulate_spin writes the same).
    write_spin_folder(
        tmp_path, [{**{k: first[k] for k in keys}, "seq": 0, "action": first["event"]}]
    )
    with pytest.raises(WindowFormatError, match="duplicate window_id"):
        cut_heldout(spin, tmp_path)


def test_a_held_out_folder_that_is_not_there_is_refused(tmp_path):
    with pytest.raises(cli.InputError, match="not a directory"):
        cli.cut_hidden(load_contract("spin"), tmp_path / "missing")


def test_the_setting_is_a_folder_or_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("HELDOUT_DATA_DIR", "")
    assert env_path("HELDOUT_DATA_DIR") is None
    monkeypatch.setenv("HELDOUT_DATA_DIR", str(tmp_path))
    assert env_path("HELDOUT_DATA_DIR") == tmp_path.resolve()
    monkeypatch.setenv("HELDOUT_DATA_DIR", str(tmp_path / "missing"))
    with pytest.raises(ImproperlyConfiguredEnv):
        env_path("HELDOUT_DATA_DIR")


def test_the_flag_needs_the_public_rate_above_the_held_out_one_by_more_than_the_margin():
    def shown(rate):
        return {"pooled_rate": rate, "score": rate}

    assert heldout.fit(shown(1.0), shown(1.0 - heldout.MARGIN - 0.01))["flagged"]
    assert not heldout.fit(shown(1.0), shown(1.0 - heldout.MARGIN))["flagged"]
    assert not heldout.fit(shown(0.2), shown(0.9))["flagged"]  # better held out: no flag


# ----------------------------------------------------------------------------- scoring


@pytest.mark.tla
def test_the_reference_is_scored_on_both_and_the_held_out_p3_is_official(tmp_path, held_folder):
    result = cli.score_files(str(REFERENCE), "spin", heldout_dir=held_folder)
    split = result["conformance"]
    assert split["official"] == "heldout"
    assert split["public"]["score"] == split["heldout"]["score"] == 1.0
    assert split["fits_public"]["flagged"] is False
    assert result["phases"]["conformance"]["score"] == split["heldout"]["score"]
    assert result["overall"] == pytest.approx(1.0)
    assert result["fingerprint"]["heldout_windows_sha256"]
    assert "held-out P3 (official) 1.000, public P3 1.000" in render(result)
    # Nothing of the held-out traces leaves the scorer: counts only, no window, no state.
    text = json.dumps(result)
    assert "held-7-" not in text and "held_7_" not in text
    rows = result["phases"]["conformance"]["windows"]
    assert rows and not any(r["trace_id"].startswith("held_") for r in rows)


@pytest.mark.tla
def test_a_lookup_table_of_the_public_windows_is_flagged_and_gets_only_p1_and_p2(
    spin, public, held_folder
):
    # The attacker knows the symmetry probes too: every row under every thread permutation.
    callers = {"callType": dict.fromkeys(THREADS, "none")}
    table = lookup_table_spec(spin, with_permutations(public, THREADS), callers)
    report = score_spec(table, spin, public, heldout_windows=cut_heldout(spin, held_folder))
    p3 = report.outcomes["conformance"]
    # Followed from Init, the table explains the public traces only as far as P3's work bound
    # lets it (its thousands of rows are evaluated in every state): where it fits them, the
    # run is flagged; either way the held-out set gives it nothing.
    public_rate = p3.details["public"]["pooled_rate"]
    heldout_rate = p3.details["heldout"]["pooled_rate"]
    assert public_rate > heldout_rate
    if public_rate - heldout_rate > 0.25:
        assert p3.details["fits_public"]["flagged"] is True
    assert p3.score == p3.details["heldout"]["score"] == 0
    assert report.outcomes["invariant"].score == 0
    assert report.overall <= ONLY_P1_P2


@pytest.mark.tla
def test_a_held_out_check_that_crashes_fails_p3_and_p4_credit_closed(
    spin, public, held_folder, monkeypatch
):
    real = conformance.check_conformance
    hidden = cut_heldout(spin, held_folder)

    def crash_on_the_held_out_set(spec, contract, windows, adapter):
        if any(str(w["trace_id"]).startswith("held_") for w in windows):
            raise RecursionError("maximum recursion depth exceeded")
        return real(spec, contract, windows, adapter)

    monkeypatch.setattr(conformance, "check_conformance", crash_on_the_held_out_set)
    report = score_spec(REFERENCE.read_text(), spin, public, heldout_windows=hidden)
    p3 = report.outcomes["conformance"]
    assert (p3.status, p3.score) == ("error", 0.0)
    assert p3.details["internal"] is True
    assert p3.details["heldout"]["internal_error"] is True
    p4 = report.outcomes["invariant"]
    assert p4.score == 0
    assert "P3 ended with status error" in p4.details["credit"]["withheld"]
    assert report.overall <= ONLY_P1_P2


@pytest.mark.tla
@pytest.mark.django_db
def test_the_scoring_job_scores_on_the_instances_held_out_set(tmp_path, held_folder):
    from django.test import override_settings

    from leaderboard.models import PhaseResult
    from tests.base import make_model, make_run
    from tests.release_support import import_spin, scored, spec, spin_contracts

    tasks_dir = spin_contracts(tmp_path)
    with override_settings(TASKS_DATA_DIR=tasks_dir, HELDOUT_DATA_DIR=held_folder):
        task = import_spin(tasks_dir)
        run = scored(make_run(make_model(), task, spec_text=spec("spin")))
    assert run.fingerprint["heldout_windows_sha256"]
    p3 = PhaseResult.objects.get(run=run, phase="conformance")
    assert p3.details["official"] == "heldout"
    assert p3.details["heldout"]["windows"] > 0
    # Only the public windows are stored as rows.
    assert not p3.window_results.filter(trace_id__startswith="held_").exists()
