"""`manage.py score` scores a spec through the real pipeline, with no web server and no Redis,
and prints the same result twice."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.tla

REFERENCE = Path(settings.BASE_DIR) / "tasks_data" / "spin" / "reference" / "spin.tla"
TIMING_KEYS = ("duration_seconds", "wall_seconds", "seconds", "elapsed")


def score(path, *extra) -> str:
    out = StringIO()
    call_command("score", str(path), "--task", "spin", *extra, stdout=out)
    return out.getvalue()


def without_timings(value):
    """The result minus wall-clock figures, which legitimately differ between runs."""
    if isinstance(value, dict):
        return {
            k: without_timings(v)
            for k, v in value.items()
            if not any(k == t or k.endswith("_" + t) for t in TIMING_KEYS)
        }
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


@pytest.fixture(scope="module")
def reference_runs():
    if not Path(settings.SYSMOBENCH_DATA_DIR).is_dir():
        pytest.skip("SysMoBench data folder not present")
    return [json.loads(score(REFERENCE, "--json")) for _ in range(2)]


def test_reference_spec_scores_one_in_all_four_phases(reference_runs):
    result = reference_runs[0]
    assert list(result["phases"]) == ["syntax", "runtime", "conformance", "invariant"]
    assert {name: p["score"] for name, p in result["phases"].items()} == {
        "syntax": 1.0,
        "runtime": 1.0,
        "conformance": 1.0,
        "invariant": 1.0,
    }
    assert result["overall"] == pytest.approx(1.0)
    runtime = result["phases"]["runtime"]
    assert {a["action"] for a in runtime["actions"]} >= {"AcquireLock", "ReleaseLock"}
    assert result["fingerprint"]["window_count"] > 0
    assert result["fingerprint"]["sany_version"].startswith("SANY2 Version")


def test_reference_result_is_identical_twice(reference_runs):
    first, second = (without_timings(r) for r in reference_runs)
    assert first == second


def test_text_table_lists_phases_and_actions(tmp_path):
    out = score(REFERENCE, "--phases", "runtime,syntax")
    lines = out.splitlines()
    assert lines[0].split() == ["phase", "status", "score", "time"]
    assert lines[1].split()[:3] == ["syntax", "ran", "1.000"]
    assert lines[2].split()[:3] == ["runtime", "ran", "1.000"]
    assert any(line.strip().startswith("AcquireLock: fired ") for line in lines)
    assert "conformance" not in out
    assert "overall: n/a (not all phases ran)" in out


def test_text_output_names_the_error_and_skips_later_phases(tmp_path):
    spec = tmp_path / "spun.tla"
    spec.write_text(REFERENCE.read_text().replace("Init ==", "Init == )", 1))
    out = score(spec, "--phases", "syntax,runtime,invariant")
    assert "Init (line" in out
    assert "runtime      skipped" in out
    assert "invariant    skipped" in out


def test_unknown_task_phase_and_bad_adapter_are_clear_errors(tmp_path):
    with pytest.raises(CommandError, match="no-such-task"):
        call_command("score", str(REFERENCE), "--task", "no-such-task")
    with pytest.raises(CommandError, match="unknown phase"):
        score(REFERENCE, "--phases", "syntax,typing")
    adapter = tmp_path / "adapter.yaml"
    adapter.write_text("variables:\n  noSuchVariable: x\n")
    with pytest.raises(CommandError, match="noSuchVariable.*unknown schema variable"):
        score(REFERENCE, "--adapter", str(adapter), "--phases", "syntax")


def test_a_submitters_cfg_names_a_renamed_module_and_unpinned_constants(tmp_path):
    # The module keeps its own name and declares a constant the contract does not pin; the cfg
    # assigns it (its CHECK_DEADLOCK is ignored with the reason in the fingerprint).
    spec = tmp_path / "1_spin.tla"
    text = REFERENCE.read_text().replace("MODULE spin", "MODULE 1_spin", 1)
    spec.write_text(text.replace("CONSTANT Threads", "CONSTANT Threads, Spare", 1))
    cfg = tmp_path / "1_spin.cfg"
    cfg.write_text("SPECIFICATION Spec\nCONSTANTS Spare = 7\nCHECK_DEADLOCK TRUE\n")
    result = json.loads(score(spec, "--cfg", str(cfg), "--phases", "syntax,runtime", "--json"))
    assert result["phases"]["runtime"]["score"] == 1.0
    assert result["phases"]["runtime"]["details"]["constants"]["Spare"] == "7"
    bad = tmp_path / "bad.cfg"
    bad.write_text("CONSTANTS\n  Spare\n")
    with pytest.raises(CommandError, match="the cfg cannot be read: line 2"):
        score(spec, "--cfg", str(bad), "--phases", "syntax")
