"""Tool versions are probed once per installation, not once per forked rq work-horse.

A work-horse starts with the per-process caches of its parent worker, which never scored, so
each run used to start three JVMs (java -version, TLC, SANY) just to print banners. These tests
score a run, empty the per-process caches as a fresh work-horse would have them, score again
and count the probe JVMs started through `tools._probe`, the one place every probe launches.
"""

import json

import pytest

from evaluation.inputs.contracts import load_contract
from evaluation.pipeline import score_spec
from evaluation.tla import tools

BROKEN = "---- MODULE spin ----\nVARIABLE x\nInit == x = \n====\n"
TOOL_KEYS = ("tlc_version", "sany_version", "java_version")


def _fresh_work_horse() -> None:
    for cached in (tools.tool_versions, tools.probed_versions, tools.java_version):
        cached.cache_clear()


@pytest.fixture
def probes(monkeypatch, tmp_path):
    """Counts probe launches; the real probe still runs. The cache directory is private."""
    monkeypatch.setenv("SYSMOBENCH_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(tools.VERSIONS_ENV, raising=False)
    launched: list[list[str]] = []
    real = tools._probe

    def counting(argv, cwd):
        launched.append(list(argv))
        return real(argv, cwd)

    monkeypatch.setattr(tools, "_probe", counting)
    _fresh_work_horse()
    yield launched
    _fresh_work_horse()


def _score() -> dict:
    report = score_spec(BROKEN, load_contract("spin"), [])
    return {key: report.fingerprint[key] for key in TOOL_KEYS}


def test_a_second_work_horse_starts_no_probe_jvm(probes):
    first = _score()
    assert len(probes) == 3, probes  # java -version, the TLC banner, the SANY banner
    assert "unknown" not in first.values()
    _fresh_work_horse()
    second = _score()
    assert probes[3:] == []
    assert second == first


def test_an_unreadable_record_is_probed_again(probes):
    _score()
    path = tools._versions_record_path()
    assert path is not None and path.is_file()
    path.write_text(json.dumps({"java": 17}), encoding="utf-8")
    _fresh_work_horse()
    again = _score()
    assert len(probes) == 6
    assert isinstance(again["java_version"], str) and "unknown" not in again.values()


def test_with_the_images_record_only_java_is_asked_and_only_until_it_is_kept(
    probes, monkeypatch, tmp_path
):
    image_record = tmp_path / "tool-versions-image.json"
    image_record.write_text(
        json.dumps({"jar_sha256": tools.JAR_SHA256, "tlc": "TLC2 Version x", "sany": "SANY2 y"})
    )
    monkeypatch.setenv(tools.VERSIONS_ENV, str(image_record))
    first = _score()
    assert [argv[1:] for argv in probes] == [["-version"]]
    assert (first["tlc_version"], first["sany_version"]) == ("TLC2 Version x", "SANY2 y")
    monkeypatch.delenv(tools.VERSIONS_ENV)
    _fresh_work_horse()
    _score()  # a full probe, which keeps java's line in the cache as well
    monkeypatch.setenv(tools.VERSIONS_ENV, str(image_record))
    _fresh_work_horse()
    before = len(probes)
    again = _score()
    assert probes[before:] == []
    assert again["java_version"] == first["java_version"]
