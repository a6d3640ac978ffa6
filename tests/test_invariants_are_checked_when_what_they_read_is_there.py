"""A spec without one of the contract's unobserved variables (spin's `callType`, which no trace
records) loses only the invariants that read it: each says what to add, and every other
invariant is checked and credited as usual. Which invariants read it comes from the contract's
own definitions, not from a list in the test."""

import pytest
from django.urls import reverse

from evaluation.inputs.adapter_check import identifiers
from evaluation.phases.invariants.phase import ABSENT
from evaluation.pipeline import score_spec
from tests.base import WorldTestCase, make_invariant_result, make_phase_result, make_run
from tests.conformance_support import replace_once, spin, spin_spec, spin_windows


def spin_without_call_type() -> str:
    spec = spin_spec()
    for old, new in [
        ("VARIABLES lockState, pc, callType", "VARIABLES lockState, pc"),
        ("vars == <<lockState, pc, callType>>", "vars == <<lockState, pc>>"),
        ('  /\\ callType \\in [Threads -> {"none", "lock", "try_lock"}]\n', ""),
        ('  /\\ callType = [t \\in Threads |-> "none"]\n', ""),
        ('  /\\ callType\' = [callType EXCEPT ![t] = "lock"]\n', ""),
        (
            '  /\\ IF pc[t] = "acquiring"\n       THEN UNCHANGED callType\n'
            '       ELSE \\E c \\in {"lock", "try_lock"} : callType\' = '
            "[callType EXCEPT ![t] = c]\n",
            "",
        ),
        ('  /\\ callType\' = [callType EXCEPT ![t] = "none"]\n', ""),
    ]:
        spec = replace_once(spec, old, new)
    assert "callType" not in spec
    return spec


def _reading_call_type() -> set[str]:
    return {
        inv.name
        for inv in spin().invariants
        if "callType" in identifiers(inv.definition.split("==", 1)[1])
    }


@pytest.mark.tla
def test_only_the_invariants_reading_a_missing_variable_are_lost():
    reading = _reading_call_type()
    assert reading and reading != {inv.name for inv in spin().invariants}
    report = score_spec(spin_without_call_type(), spin(), spin_windows())
    p4 = report.outcomes["invariant"]
    assert p4.details["absent"] == ["callType"]
    verdicts = {o.name: o for o in p4.invariants}
    for name in reading:
        assert verdicts[name].verdict == "error"
        assert verdicts[name].credit == "absent"
        assert verdicts[name].reason.startswith(f"{ABSENT}: it reads callType")
        assert "map it in an adapter" in verdicts[name].reason
    others = set(verdicts) - reading
    assert {verdicts[n].verdict for n in others} == {"holds"}
    assert p4.score == pytest.approx(len(others) / len(verdicts))
    # Nothing of the generated modules reaches the submitter.
    assert not any("CheckBody" in o.reason for o in p4.invariants)


class RunPageExplainsAMissingVariable(WorldTestCase):
    def test_the_run_page_says_which_variable_is_missing_and_no_adapter_is_blamed(self):
        run = make_run(self.model_a, self.spin)
        p4 = make_phase_result(run, "invariant", 0.5, details={"absent": ["callType"]})
        make_invariant_result(
            p4,
            "TryLockNoSpinning",
            verdict="error",
            credit="absent",
            reason=f"{ABSENT}: it reads callType",
        )
        page = self.client.get(reverse("run_detail", args=[run.pk]))
        self.assertContains(page, 'id="absent-note"')
        self.assertContains(page, "The spec has no <code>callType</code>")
        self.assertNotContains(page, 'id="not-modelled-note"')
