"""AppCDS archives: made once, atomically, used read-only inside the sandbox, never required."""

import threading

import pytest

from evaluation.tla import appcds, sandbox
from evaluation.tla.sandbox import cds

pytestmark = pytest.mark.tla

MODULE = "---- MODULE Cds ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = x\n====\n"
SANY = "tla2sany.SANY"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv(appcds.ENV_VAR, str(directory))
    return directory


def test_concurrent_first_users_leave_one_complete_archive(cache, monkeypatch):
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(sandbox.appcds_archive(SANY)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    made = [r for r in results if r is not None]
    assert made, "nobody created the archive"
    assert len(set(made)) == 1
    # Beside the archive: its lock and the tool-version record (tools.probed_versions).
    archives = [p for p in cache.iterdir() if not p.name.startswith("tool-versions-")]
    assert sorted(p.suffix for p in archives) == [".jsa", ".lock"]
    # -Xshare:on makes the JVM fail instead of silently ignoring an archive it cannot map, so
    # an ok run proves the archive is complete and readable from inside the sandbox.
    monkeypatch.setattr(cds, "CDS_SHARE", "-Xshare:on")
    run = sandbox.run_sany({"Cds": MODULE}, "Cds")
    assert run.status == "ok", run.output[-2000:]
    assert sandbox.appcds_archive(SANY) == made[0]


def test_archive_key_follows_jvm_flags_and_tool():
    plain = appcds.archive_name(SANY, ["-XX:+UseSerialGC"])
    assert plain != appcds.archive_name(SANY, ["-XX:+UseParallelGC"])
    assert plain != appcds.archive_name("tlc2.TLC", ["-XX:+UseSerialGC"])
    assert plain == appcds.archive_name(SANY, ["-XX:+UseSerialGC"])


def test_unusable_cache_falls_back_to_no_archive(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv(appcds.ENV_VAR, str(blocker / "cache"))
    assert sandbox.appcds_archive(SANY) is None
    assert sandbox.run_sany({"Cds": MODULE}, "Cds").status == "ok"
    monkeypatch.setenv(appcds.ENV_VAR, "off")
    assert appcds.cache_dir() is None and sandbox.appcds_archive(SANY) is None


def test_failed_training_is_remembered_and_not_fatal(cache):
    calls = []

    def failing(out):
        calls.append(out)
        return False

    assert appcds.archive_for(SANY, ["-Xtest"], failing) is None
    assert appcds.archive_for(SANY, ["-Xtest"], failing) is None
    assert len(calls) == 1
    assert not any(p.suffix in (".jsa", ".tmp") for p in cache.iterdir())


def test_a_long_run_uses_full_jit_and_still_maps_the_archive(cache, monkeypatch):
    # The archive is made by a C1-only JVM; a long P4 run (C2 too) must map it all the same.
    monkeypatch.setattr(cds, "CDS_SHARE", "-Xshare:on")
    cfg = "INIT Init\nNEXT Next\n"
    quick = sandbox.run_tlc({"Cds": MODULE}, "Cds", cfg)
    long = sandbox.run_tlc({"Cds": MODULE}, "Cds", cfg, limits=sandbox.Limits(long_run=True))
    assert quick.status == long.status == "ok", long.output[-2000:]
    assert sandbox.QUICK_JIT in quick.flags and sandbox.QUICK_JIT not in long.flags
