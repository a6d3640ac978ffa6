"""Fair negative windows are transitions the traces show the system never makes: built only from
what every window of an action agrees on, never a post-state the corpus shows, deterministic,
capped; an action that accepts one fails zero tolerance with a reason naming it. No TLC here."""

from evaluation.phases.conformance import fair, specificity
from evaluation.phases.conformance.cases import Case, build_cases
from evaluation.phases.conformance.runner import CaseResult
from evaluation.phases.conformance.vocab import schema_vocab
from tests.conformance_support import spin, spin_windows


def _case(key, action, actor, pre, post):
    return Case(key, action, actor, None, pre, post)


def _spin_cases():
    windows = spin_windows()
    return build_cases(windows, [True] * len(windows))


def _pc(a, b, c):
    return {"0": a, "1": b, "2": c}


def test_spin_profiles_read_the_frame_and_the_determined_slots_off_the_corpus():
    profiles = fair.profiles(_spin_cases(), schema_vocab(spin()), set())
    acquire = profiles["AcquireLock"]
    # No AcquireLock window changes another thread's phase ...
    assert acquire.frame(("pc", "other"))
    assert not acquire.frame(("pc", "own"))
    # ... and it always takes the lock from unlocked to locked, the actor to locked.
    assert acquire.determined(("lockState", "scalar"), "unlocked") == '"locked"'
    assert acquire.determined(("pc", "own"), "idle") == '"locked"'
    assert acquire.determined(("pc", "own"), "acquiring") == '"locked"'


def test_a_slot_whose_post_value_is_not_a_function_of_its_pre_value_is_not_determined():
    vocab = schema_vocab(spin())
    pre = {"lockState": "unlocked", "pc": _pc("idle", "acquiring", "idle")}
    locked = {"lockState": "locked", "pc": _pc("idle", "locked", "idle")}
    gave_up = {"lockState": "unlocked", "pc": _pc("idle", "idle", "idle")}
    other = {"lockState": "unlocked", "pc": _pc("acquiring", "acquiring", "idle")}
    real = [
        _case("a", "AcquireLock", "1", pre, locked),
        _case("b", "AcquireLock", "1", {**pre, "pc": _pc("idle", "acquiring", "acquiring")},
              {**locked, "pc": _pc("idle", "locked", "acquiring")}),
        _case("c", "AcquireLock", "1", other, gave_up | {"pc": _pc("acquiring", "idle", "idle")}),
    ]  # fmt: skip
    profile = fair.profiles(real, vocab, set())["AcquireLock"]
    # From "acquiring" the actor went to "locked" twice and to "idle" once: no function.
    assert profile.determined(("pc", "own"), "acquiring") is None
    negatives = fair.fair_negative_cases(real, vocab)
    assert all("pc[1]" not in [c["slot"] for c in n.changed] for n in negatives)


def test_support_counts_distinct_cases_not_repeated_windows():
    vocab = schema_vocab(spin())
    pre = {"lockState": "locked", "pc": _pc("locked", "idle", "idle")}
    post = {"lockState": "unlocked", "pc": _pc("idle", "idle", "idle")}
    one = _case("a", "ReleaseLock", "0", pre, post)
    one.windows = [0, 1, 2, 3]  # the same transition seen four times is one observation
    assert fair.fair_negative_cases([one], vocab) == []


def test_negatives_never_repeat_an_observed_post_state_and_are_deterministic():
    cases = _spin_cases()
    vocab = schema_vocab(spin())
    first = fair.fair_negative_cases(cases, vocab)
    second = fair.fair_negative_cases(_spin_cases(), vocab)
    assert [c.key for c in first] == [c.key for c in second]
    # Both families of this module (FAIR_KINDS also counts `neg-safety`, made by safety.py).
    assert first and {c.kind for c in first} == {fair.FRAME, fair.DETERMINED}
    observed = {(c.action, c.actor, repr(c.pre), repr(c.post)) for c in cases}
    for negative in first:
        assert (negative.action, negative.actor, repr(negative.pre), repr(negative.post)) not in (
            observed
        )
        assert negative.changed and negative.why
        # The changed slots are exactly where the negative differs from the real post-state.
        for change in negative.changed:
            assert change["negative"] != change["trace"]


def test_two_slots_the_system_always_changes_together_are_also_changed_together():
    negatives = fair.fair_negative_cases(_spin_cases(), schema_vocab(spin()))
    pairs = [n for n in negatives if n.action == "AcquireLock" and len(n.changed) == 2]
    # The lock stays unlocked and the actor stays where it was: a step the system never takes
    # for AcquireLock, and one a spec keeping lockState and pc consistent allows.
    assert any(
        n.post["lockState"] == "unlocked" and n.post["pc"][n.actor] == n.pre["pc"][n.actor]
        for n in pairs
    )


def test_every_action_is_capped_and_every_case_contributes_before_any_twice():
    cases = _spin_cases()
    negatives = fair.fair_negative_cases(cases, schema_vocab(spin()))
    for action in ("AcquireLock", "ReleaseLock"):
        mine = [n for n in negatives if n.action == action]
        assert 0 < len(mine) <= fair.FAIR_PER_ACTION
        starts = {repr(c.pre) for c in cases if c.action == action}
        assert {repr(n.pre) for n in mine} == starts


def test_variables_with_a_contract_view_are_never_changed():
    negatives = fair.fair_negative_cases(_spin_cases(), schema_vocab(spin()), {"pc"})
    assert negatives
    assert all(c["slot"] == "lockState" for n in negatives for c in n.changed)


def test_an_accepted_fair_negative_fails_zero_tolerance_with_a_reason_naming_it():
    negatives = fair.fair_negative_cases(_spin_cases(), schema_vocab(spin()))
    results = [CaseResult("fail") for _ in negatives]
    accepted = next(i for i, n in enumerate(negatives) if n.action == "ReleaseLock")
    results[accepted] = CaseResult("pass")
    detail = specificity.of_action("ReleaseLock", negatives, results)
    assert detail["fair"]["accepted"] == 1
    reason = specificity.refusal("ReleaseLock", detail)
    assert reason.startswith(specificity.REFUSAL)
    assert negatives[accepted].changed[0]["slot"] in reason
    clean = specificity.of_action("AcquireLock", negatives, results)
    assert specificity.refusal("AcquireLock", clean) == ""


def test_diagnostic_negatives_alone_never_fail_an_action():
    diagnostic = Case("k", "AcquireLock", "1", None, {}, {}, "neg-step")
    detail = specificity.of_action("AcquireLock", [diagnostic], [CaseResult("pass")])
    assert detail["wrongly_accepted"] == 1
    assert specificity.refusal("AcquireLock", detail) == ""
