"""The run page says why an action that accepts every window still fails (it accepts a fair
negative window) and marks the invariants that hold without earning credit."""

import re

from django.urls import reverse

from evaluation.phases.invariants import credit
from tests.base import (
    WorldTestCase,
    make_action_result,
    make_invariant_result,
    make_phase_result,
    make_run,
)

REFUSAL = (
    "accepts a transition the system never makes: 4 of 36 fair negative windows accepted, e.g. "
    'ReleaseLock by 1 from a window\'s pre-state to its post-state with pc[1] = "acquiring"'
)
SPECIFICITY = {
    "checked": 60,
    "wrongly_accepted": 4,
    "fair": {"checked": 36, "accepted": 4, "errors": 0, "unevaluated": 0, "examples": []},
    "by_family": {},
}


class SpecificityAndCreditTest(WorldTestCase):
    def setUp(self):
        self.run = make_run(self.model_a, self.spin)
        conformance = make_phase_result(self.run, "conformance", 0.5)
        make_action_result(
            conformance,
            "ReleaseLock",
            152,
            152,
            detail={
                "zero_tolerance": 0,
                "specificity": SPECIFICITY,
                "specificity_failure": REFUSAL,
            },
        )
        make_action_result(conformance, "AcquireLock", 152, 152, detail={"zero_tolerance": 1})
        invariants = make_phase_result(self.run, "invariant", 0.5)
        make_invariant_result(
            invariants,
            "MutualExclusion",
            verdict="error",
            credit="vacuous",
            reason=f"{credit.VACUOUS}: the spec never reaches a state where pc takes 'locked'",
        )
        make_invariant_result(
            invariants,
            "LockConsistency",
            verdict="error",
            credit="unspecific",
            reason=f"{credit.UNSPECIFIC}: the traces change lockState and pc through ReleaseLock",
        )
        make_invariant_result(invariants, "NoDeadlock", verdict="holds")

    def html(self) -> str:
        return self.client.get(reverse("run_detail", args=[self.run.pk])).content.decode()

    def test_an_action_that_accepts_a_fair_negative_fails_with_the_reason(self):
        scorecard = self.html().split('class="actions scorecard"')[1].split("</table>")[0]
        rows = {
            re.search(r"<code>(\w+)</code>", r).group(1): r for r in scorecard.split("<tr>")[2:]
        }
        release = rows["ReleaseLock"]
        self.assertIn("152 / 152", release)
        self.assertIn(">fails<", release)
        self.assertIn("accepts a transition the system never makes", release)
        self.assertIn("4 of 36 fair negative windows accepted (counted)", release)
        self.assertIn("0 of 24 other negative windows accepted (shown only)", release)
        self.assertIn(">passes<", rows["AcquireLock"])

    def test_invariants_that_hold_without_credit_are_marked_with_their_reason(self):
        html = self.html()
        table = html.split('id="invariants"')[1].split("</table>")[0]
        marks = {
            name: mark
            for mark, name in re.findall(r'<tr class="([^"]*)" data-invariant="(\w+)"', table)
        }
        self.assertEqual(marks["MutualExclusion"], "not-credited")
        self.assertEqual(marks["LockConsistency"], "not-credited")
        self.assertEqual(marks["NoDeadlock"], "")
        self.assertIn("never reaches a state where pc takes &#x27;locked&#x27;", table)
        self.assertIn('id="not-credited-note"', html)
