"""A scratch area the machine filled is no verdict: preparing a tool's run directory in a full
$TMPDIR raises InfrastructureFailure (the job retries the attempt), and $TMPDIR is used as given,
never silently swapped for /tmp (docs/decisions/0003-no-run-left-behind.md: tmp-full trials passed
only by that fallback)."""

import errno
from unittest import mock

import pytest

from evaluation.results import InfrastructureFailure
from evaluation.tla.sandbox import rundir


def test_a_full_scratch_area_raises_an_infrastructure_failure(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    full = OSError(errno.ENOSPC, "No space left on device")
    with mock.patch("shutil.copyfile", side_effect=full):
        with pytest.raises(InfrastructureFailure, match="is full"):
            rundir.prepare({"M": "---- MODULE M ----\n====\n"}, "M")
    assert not list(tmp_path.glob(f"{rundir.RUN_DIR_PREFIX}*")), "the half-made directory stays"


def test_another_os_error_is_not_the_machine_s_full_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with mock.patch("shutil.copyfile", side_effect=PermissionError(errno.EACCES, "denied")):
        with pytest.raises(PermissionError):
            rundir.prepare({"M": "---- MODULE M ----\n====\n"}, "M")


def test_run_directories_go_under_tmpdir_as_given(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with rundir.run_directory({"M": "---- MODULE M ----\n====\n"}, "M", "INIT Init\n") as run_dir:
        assert run_dir.parent == tmp_path
        assert (run_dir / "spec" / "M.cfg").read_text() == "INIT Init\n"
