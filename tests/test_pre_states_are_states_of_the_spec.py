"""A window's verdict comes only from pre-states the spec's own behaviour confirms: TypeOK
credits nothing, several spec states showing one window's pre-state must all pass (no
convenient choice), and an adapter's state mapping is used only where the spec's reachable
states agree with it. Each test is an attack that scored before (issue 20) and must not now.

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
from tests.conformance_support import spin, spin_windows

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
    assert outcome.details["auxiliary_state"]["rule"] == "explored"
    # From the states it reaches (every thread idle) its steps only toggle the counter: it
    # accepts AcquireLock's fair negatives that leave a slot as it was where the system changes
    # it; ReleaseLock's windows (a thread holds the lock) show no state it reaches.
    specificity = {a.action: a.detail["specificity"]["fair"] for a in outcome.actions}
    assert specificity["AcquireLock"]["accepted"] > 0
    release = [w for w in outcome.windows if w.action == "ReleaseLock"]
    assert release and {w.verdict for w in release} == {"undecided"}


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


@pytest.mark.parametrize("adapter", TRYLOCK_ADAPTERS)
def test_a_two_step_try_lock_fails_every_window_from_idle_whatever_the_adapter(trylock, adapter):
    # The spec takes the lock in two steps (idle -> trying -> locked); the system takes it in
    # one CAS. The original benchmark's verdict: AcquireLock 96/152, every failure from idle.
    outcome = trylock[adapter]
    assert outcome.score == 0.5
    counts = {a.action: (a.passed, a.total) for a in outcome.actions}
    assert counts == {"AcquireLock": (96, 152), "ReleaseLock": (152, 152)}
    failing = [w for w in outcome.windows if w.verdict != "pass"]
    assert {w.pre_state["pc"][w.actor] for w in failing} == {"idle"}
    assert {w.verdict for w in failing} == {"fail"}


def test_showing_trying_as_idle_adds_candidates_and_each_must_pass(trylock):
    # merge_trying shows the spec's "trying" as the trace's "idle": an idle thread's window now
    # has spec states where it is idle and where it is trying; the idle ones fail.
    window = next(w for w in trylock["merge_trying"].windows if w.verdict == "fail")
    assert window.detail["pre_state_candidates"] > 1
    assert "each must pass" in window.reason


def test_a_state_mapping_that_builds_trying_for_an_idle_thread_is_refused(trylock):
    mapping = trylock["state_prefers_trying"].details["state_mapping"]
    assert mapping["credited"] == []
    (refused,) = mapping["refused"]
    assert refused["variable"] == "pc" and refused["rule"] == "reads back"
    # An idle thread of a state the spec reaches, which the mapping would make "trying".
    idle = [t for t, phase in refused["spec"].items() if phase == "idle"]
    assert idle and all(refused["mapped"][t] == "trying" for t in idle)
    assert "state mapping for pc refused" in refused["text"]


def _replay(task: str):
    contract = load_contract(task)
    windows = cut_windows(contract, settings.SYSMOBENCH_DATA_DIR)
    return contract, windows, replay_table_spec(contract, windows)


# A flag set by the adapter alone, and one set only where the window's `var` is not the
# initial one: right on every state the spec reaches (all of them initial), it invents beyond.
FLAGS = {"dqueue": "pc", "etcd": "currentTerm"}


@pytest.mark.parametrize("task", sorted(FLAGS))
def test_a_replay_table_behind_a_state_mapped_flag_scores_nothing(task):
    contract, windows, spec = _replay(task)
    var = FLAGS[task]
    initial = to_tla(start_state(contract, windows)[var])
    flags = {"reads back": "'TRUE'", "invents nothing": f"'obs.{var} # {initial}'"}
    for rule, flag in flags.items():
        adapter = parse_adapter(f"state:\n  cheat: {flag}\n", contract)
        outcome = check_conformance(spec, contract, windows, adapter)
        assert outcome.status == "ran", outcome.details
        mapping = outcome.details["state_mapping"]
        assert [r["variable"] for r in mapping["refused"]] == ["cheat"], flag
        assert mapping["refused"][0]["rule"] == rule
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


def test_the_same_flag_is_credited_where_the_spec_itself_sets_it():
    # The rule is about the spec's behaviour, not the flag: a spec whose Init sets the flag
    # has the replay among its own steps (P2 and P4 see it), and the mapping reads back.
    contract, windows, spec = _replay("dqueue")
    spec = spec.replace("  /\\ cheat = FALSE", "  /\\ cheat = TRUE")
    adapter = parse_adapter("state:\n  cheat: 'TRUE'\n", contract)
    outcome = check_conformance(spec, contract, windows, adapter)
    assert outcome.details["state_mapping"] == {"credited": ["cheat"], "refused": []}
