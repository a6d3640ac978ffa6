"""Spin windows: counts per event and per target action match the data, bad lines are named."""

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract
from evaluation.windows import WindowFormatError, cut_windows, cut_with_summary

SPIN_FILE = Path("windows") / "spin" / "action_windows.jsonl"


@pytest.fixture(scope="module")
def contract():
    return load_contract("spin")


@pytest.fixture(scope="module")
def summary(contract):
    return cut_with_summary(contract, settings.SYSMOBENCH_DATA_DIR)


def test_the_file_has_400_windows_with_the_stated_events(summary):
    # PROVENANCE.md: AcquireSuccess 152, Release 152, TryAcquireBlocking 96.
    assert sum(summary.events.values()) == 400
    assert summary.events == {"AcquireSuccess": 152, "Release": 152, "TryAcquireBlocking": 96}


def test_mapped_windows_per_target_action(summary):
    assert summary.actions == {"AcquireLock": 152, "ReleaseLock": 152}
    assert summary.unmapped == {"TryAcquireBlocking": 96}
    assert len(summary.windows) == 304
    assert Counter((w["action"], w["event"]) for w in summary.windows) == {
        ("AcquireLock", "AcquireSuccess"): 152,
        ("ReleaseLock", "Release"): 152,
    }


def test_windows_are_canonical(summary, contract):
    last = summary.windows[-1]
    assert last == {
        "window_id": "399",
        "trace_id": "trace_15",
        "event": "Release",
        "action": "ReleaseLock",
        "actor": "0",
        "pre_state": {"lockState": "locked", "pc": {"0": "locked", "1": "idle", "2": "idle"}},
        "post_state": {"lockState": "unlocked", "pc": {"0": "idle", "1": "idle", "2": "idle"}},
    }
    observed = set(contract.observed_variables())
    for window in summary.windows:
        assert set(window["pre_state"]) == observed == set(window["post_state"])
    assert len({w["window_id"] for w in summary.windows}) == 304
    assert len({w["trace_id"] for w in summary.windows}) == 15


def _data_with(tmp_path, lines: list[str]) -> Path:
    target = tmp_path / SPIN_FILE
    target.parent.mkdir(parents=True)
    target.write_text("\n".join(lines) + "\n")
    return tmp_path


def _real_lines(n: int) -> list[str]:
    source = Path(settings.SYSMOBENCH_DATA_DIR) / SPIN_FILE
    return source.read_text().splitlines()[:n]


@pytest.mark.parametrize(
    ("bad", "what"),
    [
        ("{not json", "not JSON"),
        ('["a list"]', "expected a JSON object"),
        (None, "missing post_state"),
        (None, "pc values ['spinning'] are not known phases"),
        (None, "actor '7' is not one of the pinned Threads"),
    ],
)
def test_a_malformed_line_names_file_and_line(tmp_path, contract, bad, what):
    lines = _real_lines(5)
    if bad is None:
        window = json.loads(lines[0])
        if "post_state" in what:
            del window["post_state"]
        elif "spinning" in what:
            window["pre_state"]["pc"]["1"] = "spinning"
        else:
            window["actor"] = "7"
        bad = json.dumps(window)
    lines[3] = bad
    data = _data_with(tmp_path, lines)
    with pytest.raises(WindowFormatError) as caught:
        cut_windows(contract, data)
    message = str(caught.value)
    assert message.startswith(f"{data / SPIN_FILE}:4: ")
    assert what in message


def test_missing_trace_file_is_an_error(tmp_path, contract):
    with pytest.raises(WindowFormatError, match="no trace file matches"):
        cut_windows(contract, tmp_path)


def test_blank_lines_are_skipped(tmp_path, contract):
    shutil.copy(Path(settings.SYSMOBENCH_DATA_DIR) / SPIN_FILE, tmp_path / "copy.jsonl")
    lines = (tmp_path / "copy.jsonl").read_text().splitlines()[:4]
    data = _data_with(tmp_path / "d", [lines[0], "", lines[1], lines[2], lines[3]])
    assert len(cut_windows(contract, data)) == sum(
        1 for line in lines if json.loads(line)["action"] != "TryAcquireBlocking"
    )


def test_duplicate_window_id_names_the_second_line(tmp_path, contract):
    lines = _real_lines(2)
    data = _data_with(tmp_path, [lines[1], lines[1]])
    with pytest.raises(WindowFormatError) as caught:
        cut_windows(contract, data)
    assert str(caught.value) == f"{data / SPIN_FILE}:2: duplicate window_id '1'"
