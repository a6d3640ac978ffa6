"""P3 credits only behaviour the spec has (docs/decisions/0037-events-are-steps-of-next.md): an
event is taken by a step of its mapped action that is also a step of the spec's Next, so an
action operator that Next never lets act explains nothing. An event that carries the trace's
message is the exception the record names: its mapped action takes it with that message bound.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract
from evaluation.phases.conformance import check_conformance
from evaluation.pipeline import score_spec
from tests.conformance_support import spin_windows
from tests.trace_sample import first_traces

pytestmark = pytest.mark.tla
ATTACKS = Path(__file__).resolve().parent / "attacks"
ONLY_P1_P2 = 0.30 + 1e-9


def _spec(name: str) -> str:
    return (ATTACKS / "spin" / f"{name}.tla").read_text()


def test_a_next_that_leaves_threads_out_passes_none_of_their_events():
    windows = first_traces(spin_windows())
    report = score_spec(_spec("next_leaves_out_threads"), load_contract("spin"), windows)
    p3 = report.outcomes["conformance"]
    others = [w for w in p3.windows if w.actor != "0"]
    assert others, "the sample has events of threads 1 and 2"
    assert not [w.window_id for w in others if w.verdict == "pass"]
    assert p3.score == 0
    assert report.overall <= ONLY_P1_P2


def test_the_same_actions_under_the_reference_next_pass_every_event():
    # The control: only Next differs from the attack, so Next is what the verdicts above read.
    windows = first_traces(spin_windows())
    reference = (Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla").read_text()
    attack = _spec("next_leaves_out_threads")
    assert _from_extends(attack).replace(_ATTACK_NEXT, _REFERENCE_NEXT) == _from_extends(reference)
    outcome = check_conformance(reference, load_contract("spin"), windows)
    assert {w.verdict for w in outcome.windows} == {"pass"}


_REFERENCE_NEXT = "Next == \\E t \\in Threads : StartLock(t) \\/ AcquireLock(t) \\/ ReleaseLock(t)"
_ATTACK_NEXT = (
    "Next == \\E t \\in Threads : StartLock(t)"
    ' \\/ (t = "0" /\\ (AcquireLock(t) \\/ ReleaseLock(t)))'
)


def _from_extends(text: str) -> str:
    start = text.index("EXTENDS")
    return text[start:]
