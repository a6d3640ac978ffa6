"""A release records its held-out set's content hash (never its content); retiring it publishes
the held-out traces with it; the next release needs fresh ones
(docs/decisions/0012-held-out-traces.md)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from leaderboard.models import Release
from leaderboard.releases.identity import (
    ReleaseError,
    current_components,
    identity_of,
    make_release,
    matches,
)
from tests.heldout_support import simulate_spin, write_spin_folder
from tests.release_support import import_spin, spin_contracts

HELD = Path("windows/spin/action_windows.jsonl")


@pytest.fixture
def world(tmp_path, db):
    tasks_dir = spin_contracts(tmp_path)
    with override_settings(TASKS_DATA_DIR=tasks_dir):
        import_spin(tasks_dir)
        yield tasks_dir


def held(tmp_path: Path, seed: int) -> Path:
    return write_spin_folder(tmp_path / f"held-{seed}", simulate_spin(seed))


def test_the_identity_records_the_held_out_hash_not_the_content(world, tmp_path):
    plain = current_components()
    first = current_components(heldout_dir=held(tmp_path, 1))
    spin = first["tasks"]["spin"]
    assert "heldout_sha256" not in plain["tasks"]["spin"]
    assert len(spin["heldout_sha256"]) == 64 and spin["heldout_windows_sha256"]
    assert "held-1-" not in repr(first)  # no window, no trace id: a hash only
    assert identity_of(first) != identity_of(plain)
    assert identity_of(current_components(heldout_dir=held(tmp_path, 2))) != identity_of(first)


def test_a_run_matches_only_the_release_of_its_held_out_set(world, tmp_path):
    components = current_components(heldout_dir=held(tmp_path, 1))
    spin = components["tasks"]["spin"]
    fingerprint = {
        "scorer_version": components["scorer_version"],
        **components["tools"],
        "contract_version": spin["contract_version"],
        "corpus_version": spin["corpus_version"],
        "heldout_windows_sha256": spin["heldout_windows_sha256"],
    }
    assert matches(fingerprint, "spin", components)
    assert not matches({**fingerprint, "heldout_windows_sha256": None}, "spin", components)
    assert not matches(fingerprint, "spin", current_components())


def test_retiring_publishes_the_held_out_traces_and_the_next_release_needs_fresh_ones(
    world, tmp_path, client
):
    folder = held(tmp_path, 1)
    with override_settings(HELDOUT_DATA_DIR=folder):
        release = make_release("2026.12", "first", current_components())
        assert client.get(f"/releases/{release.name}/heldout.zip").status_code == 404
        call_command("retire_release", release.name)
    release.refresh_from_db()
    assert release.retired
    response = client.get(f"/releases/{release.name}/heldout.zip")
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response)))
    assert archive.read(HELD.as_posix()) == (folder / HELD).read_bytes()
    assert "MANIFEST.json" in archive.namelist()
    # The same held-out set again is public now: refused, whatever else changed.
    reused = current_components(heldout_dir=folder)
    reused["scorer_version"] += "+next"
    with pytest.raises(ReleaseError, match="published with the retired release"):
        make_release("2027.01", "second", reused)
    fresh = current_components(heldout_dir=held(tmp_path, 2))
    assert make_release("2027.01", "second", fresh).name == "2027.01"


def test_a_folder_that_is_not_the_recorded_one_is_not_published(world, tmp_path):
    release = make_release("2026.12", "first", current_components(heldout_dir=held(tmp_path, 1)))
    with pytest.raises(CommandError, match="not the ones release 2026.12 recorded"):
        call_command("retire_release", release.name, heldout_dir=str(held(tmp_path, 2)))
    with pytest.raises(CommandError, match="give its folder"):
        call_command("retire_release", release.name)
    assert not Release.objects.get(pk=release.pk).retired
