"""P3 reads a TLC run's output whole or not at all (evaluation/phases/conformance/runner.py,
READ_OUTPUT_BYTES): a spec that floods its output, so that the lines of the states it fails from
would be cut away, gains nothing. The attack is the spin mutant that fails every ReleaseLock
window, made to print a large value on every step it takes."""

import pytest

from evaluation.phases.conformance import check_conformance, runner
from evaluation.tla.sandbox.capture import Capture
from tests.conformance_support import replace_once, spin, spin_spec, spin_windows, verdicts

pytestmark = pytest.mark.tla

NEXT = "Next == \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)"
# About 20 kB printed each time TLC takes a step of the spec: far more than the 300 kB the test
# lets a run print (the scorer's bound is 8 MB; a flood of it costs minutes, the rule is the same).
FLOOD = 'PrintT("' + "flooding" * 2_500 + '")'


def flooding(spec: str) -> str:
    steps = NEXT.removeprefix("Next == ")
    return replace_once(spec, NEXT, f"Next == ({steps}) /\\ {FLOOD}")


def test_a_failure_cut_out_of_the_output_is_never_a_pass(monkeypatch):
    # Less output and fewer reruns by halves than the scorer allows, so the test ends in
    # seconds; what the last allowed run could not read whole is undecided at any bound.
    monkeypatch.setattr(runner, "READ_OUTPUT_BYTES", 300_000)
    monkeypatch.setattr(runner, "MAX_RUNS", 4)
    # Two traces: the cut run is read again in halves down to one trace each within the 4 runs.
    every = spin_windows()
    two = list(dict.fromkeys(w["trace_id"] for w in every))[:2]
    windows = [w for w in every if w["trace_id"] in two]
    honest = check_conformance(spin_spec("wrong_post_state"), spin(), windows)
    flooded = check_conformance(flooding(spin_spec("wrong_post_state")), spin(), windows)
    lost = {w for w, verdict in verdicts(honest).items() if verdict != "pass"}
    assert lost, "the mutant loses its ReleaseLock windows"
    got = verdicts(flooded)
    assert {w for w in lost if got[w] == "pass"} == set()
    assert flooded.score <= honest.score
    assert any(w.verdict == "error" and "too large to read" in w.reason for w in flooded.windows)


def test_the_head_kept_is_the_callers_and_the_tail_is_always_kept():
    capture = Capture(head_limit=10)
    for n in range(20_000):  # 200 kB: more than the 100 kB tail
        capture.feed(f"line {n}\n".encode())
    text = capture.text()
    assert text.startswith("line 0\n")
    assert "line 1\n" not in text  # the head holds only what fits in its 10 bytes
    assert capture.truncated and "[... output truncated ...]" in text
    assert text.endswith("line 19999\n")
    whole = Capture(head_limit=10_000)
    for n in range(100):
        whole.feed(f"line {n}\n".encode())
    assert not whole.truncated and whole.text().count("line ") == 100
