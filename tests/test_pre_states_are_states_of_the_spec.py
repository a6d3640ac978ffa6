"""A window's verdict comes only from states the spec reaches by following the window's trace
from its own Init: TypeOK credits nothing, an adapter's state mapping builds nothing, and the
trace's history (not a choice among all reachable states) decides the hidden state. Each test is
an attack that scored before (docs/decisions/0006-p3-follows-traces.md) and must not now.

Real TLC on the spin, dqueue and etcd windows.
"""

from pathlib import Path

import pytest
from django.conf import settings

from evaluation.inputs.contracts import load_contract, parse_adapter
from evaluation.phases.conformance import check_conformance
from evaluation.pipeline import score_spec
from evaluation.tla.values import to_tla
from evaluation.windows import cut_windows
from tests.attack_support import replay_table_spec, start_state
from tests.conformance_support import spin, spin_windows, verdicts
from tests.trace_sample import first_traces

pytestmark = pytest.mark.tla

ATTACKS = Path(__file__).resolve().parent / "attacks" / "spin"
TRYLOCK_ADAPTERS = [None, "merge_trying", "state_prefers_trying"]


def _attack(name: str) -> str:
    return (ATTACKS / name).read_text()


@pytest.fixture(scope="module")
def windows():
    return spin_windows()


def test_a_typeok_naming_a_flag_init_never_sets_earns_no_window(windows):
    # TypeOK says `cheat = TRUE`; Init says FALSE and no step changes it. The old TypeOK rule
    # built every pre-state with the flag set, and the flagged actions accepted anything.
    outcome = check_conformance(_attack("typeok_flag.tla"), spin(), windows)
    assert outcome.status == "ran"
    assert outcome.score == 0.0
    assert not [w for w in outcome.windows if w.verdict == "pass"]
    assert outcome.details["auxiliary_state"]["rule"] == "followed"


@pytest.fixture(scope="module")
def trylock(windows):
    spec = _attack("trylock_two_steps.tla")
    out = {}
    for name in TRYLOCK_ADAPTERS:
        adapter = None
        if name:
            text = (ATTACKS / f"trylock_two_steps.{name}.adapter.yaml").read_text()
            adapter = parse_adapter(text, spin())
        out[name] = check_conformance(spec, spin(), windows, adapter)
    return out


@pytest.mark.parametrize("adapter", [None])
def test_a_two_step_try_lock_fails_every_window_from_idle(trylock, adapter):
    # The spec takes the lock in two steps (idle -> trying -> locked); the system takes it in
    # one CAS. The original benchmark's verdict: AcquireLock 96/152, every failure from idle.
    # A state mapping building `trying` for idle threads builds nothing: it is ignored.
    outcome = trylock[adapter]
    assert outcome.score == 0.5
    counts = {a.action: (a.passed, a.total) for a in outcome.actions}
    assert counts == {"AcquireLock": (96, 152), "ReleaseLock": (152, 152)}
    failing = [w for w in outcome.windows if w.verdict != "pass"]
    assert {w.pre_state["pc"][w.actor] for w in failing} == {"idle"}
    assert {w.verdict for w in failing} == {"fail"}


def test_a_state_mapping_is_ignored(trylock):
    # state_prefers_trying is merge_trying plus a state mapping building `trying` for idle
    # threads: the mapping builds nothing, so it scores what merge_trying scores.
    mapping = trylock["state_prefers_trying"].details["state_mapping"]
    assert mapping["credited"] == [] and mapping["ignored"] == ["pc"]
    assert verdicts(trylock["state_prefers_trying"]) == verdicts(trylock["merge_trying"])


def test_showing_trying_as_idle_hides_the_step_and_is_a_stutter(trylock):
    # merge_trying shows the spec's "trying" as the trace's "idle": the step to it changes
    # nothing the trace observes, so the spec follows every trace (docs/ADAPTERS.md).
    outcome = trylock["merge_trying"]
    assert {w.verdict for w in outcome.windows} == {"pass"}
    fair = {a.action: a.detail["specificity"]["fair"]["accepted"] for a in outcome.actions}
    assert fair == {"AcquireLock": 0, "ReleaseLock": 0}


def _replay(task: str):
    contract = load_contract(task)
    # The table is refused row by row: a few whole traces show it (tests/trace_sample.py).
    windows = first_traces(cut_windows(contract, settings.SYSMOBENCH_DATA_DIR))
    return contract, windows, replay_table_spec(contract, windows)


# A flag set by the adapter alone, and one set only where the window's `var` is not the
# initial one: right on every state the spec reaches (all of them initial), it invents beyond.
FLAGS = {"dqueue": "pc", "etcd": "currentTerm"}


@pytest.mark.parametrize("task", sorted(FLAGS))
def test_a_replay_table_behind_a_state_mapped_flag_scores_nothing(task):
    contract, windows, spec = _replay(task)
    var = FLAGS[task]
    initial = to_tla(start_state(contract, windows)[var])
    for flag in ("'TRUE'", f"'obs.{var} # {initial}'"):
        adapter = parse_adapter(f"state:\n  cheat: {flag}\n", contract)
        outcome = check_conformance(spec, contract, windows, adapter)
        assert outcome.status == "ran", outcome.details
        assert outcome.details["state_mapping"]["ignored"] == ["cheat"]
        assert outcome.score == 0.0, flag
        assert not [w for w in outcome.windows if w.verdict == "pass"]


@pytest.mark.parametrize("task", sorted(FLAGS))
def test_a_replay_table_behind_a_state_mapped_flag_gets_at_most_p1_and_p2(task):
    # The whole scoring: the table's actions only stutter in the spec's own behaviour (the flag
    # stays FALSE), so P2 counts none of them and the gate stops P3 and P4.
    contract, windows, spec = _replay(task)
    adapter = parse_adapter("state:\n  cheat: 'TRUE'\n", contract)
    report = score_spec(spec, contract, windows, adapter=adapter)
    assert report.overall is not None and report.overall <= 0.30
    assert report.outcomes["runtime"].score == 0


def test_the_same_table_passes_where_the_spec_itself_sets_the_flag():
    # The rule is about the spec's behaviour, not the flag: a spec whose Init sets the flag
    # has the replay among its own steps (P2 and P4 see it, held-out traces catch it).
    contract, windows, spec = _replay("dqueue")
    spec = spec.replace("  /\\ cheat = FALSE", "  /\\ cheat = TRUE")
    outcome = check_conformance(spec, contract, windows)
    assert [w for w in outcome.windows if w.verdict == "pass"]
