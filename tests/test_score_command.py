"""`manage.py score` prints P1/P2 with no web server and no Redis, identically twice."""

import json

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.tla

SPIN = r"""---- MODULE spin ----
EXTENDS Naturals, Sequences, TLC
CONSTANT Threads
VARIABLES lockState, pc
Init == lockState = "unlocked" /\ pc = [t \in Threads |-> "idle"]
Acquire(t) == /\ pc[t] = "idle" /\ lockState = "unlocked"
              /\ lockState' = "locked" /\ pc' = [pc EXCEPT ![t] = "locked"]
Release(t) == /\ pc[t] = "locked"
              /\ lockState' = "unlocked" /\ pc' = [pc EXCEPT ![t] = "idle"]
Next == \E t \in Threads : Acquire(t) \/ Release(t)
====
"""


def score(tmp_path, text, *extra):
    path = tmp_path / "spec.tla"
    path.write_text(text)
    from io import StringIO

    out = StringIO()
    call_command("score", str(path), "--task", "spin", *extra, stdout=out)
    return out.getvalue()


def test_json_result_is_identical_twice(tmp_path):
    first = json.loads(score(tmp_path, SPIN, "--json"))
    second = json.loads(score(tmp_path, SPIN, "--json"))
    assert [p["score"] for p in first] == [1.0, 1.0]
    strip = [{k: v for k, v in p.items() if k != "duration_seconds"} for p in first]
    again = [{k: v for k, v in p.items() if k != "duration_seconds"} for p in second]
    for phase in strip + again:
        phase["details"].pop("flags", None)
    assert strip == again


def test_text_output_names_the_error_and_skips_runtime(tmp_path):
    out = score(tmp_path, SPIN.replace("MODULE spin", "MODULE spun"))
    assert "module name mismatch" in out
    assert "runtime: status=skipped" in out


def test_unknown_task_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="no-such-task"):
        score_path = tmp_path / "s.tla"
        score_path.write_text(SPIN)
        call_command("score", str(score_path), "--task", "no-such-task")
