"""Every window and invariant result carries what it earns as a typed `credit`
(docs/decisions/0024-typed-credit-and-run-history.md): set by the scorer where the decision is made,
stored in its own column, serialised with the result, and read by the run page, the exports and the
API. A reason is prose for the reader: rewording it, or a reason that happens to begin like an old
prefix, changes nothing a page decides."""

import csv
import io
import re
from unittest import mock

from django.test import Client
from django.urls import reverse

from evaluation.inputs.contracts import load_contract
from evaluation.phases.conformance import check
from evaluation.phases.invariants import credit
from evaluation.results import InvariantOutcome, PhaseOutcome, WindowOutcome
from evaluation.surface import CREDITS
from leaderboard.accounts.tokens import create_token
from leaderboard.models import Credit, InvariantResult, WindowResult
from leaderboard.scoring.jobs import save_phase
from tests.base import WorldTestCase, make_run

# Reasons worded so that no old prefix says which credit they carry: only the field can.
P4 = [
    ("Kept", "holds", "credited", "checked together with the other invariants"),
    ("Broken", "violated", "failed", "TLC reached a state that violates it"),
    ("Empty", "error", "vacuous", "the spec never reaches a state where pc takes 'locked'"),
    ("Loose", "error", "unspecific", "ReleaseLock accepts transitions the system never makes"),
    ("Invented", "error", "not_modelled", "the adapter maps callType to no spec variable"),
    ("Missing", "error", "absent", "it reads callType, which the spec does not have"),
    ("Crashed", "error", "error", "TLC could not check it (exit code 255)"),
    # An old prefix on a scorer fault: still an error, never "not credited".
    ("Worded", "error", "error", f"{credit.VACUOUS}: TLC could not check it"),
]


def _window(verdict, credit_, window_id, action="ReleaseLock"):
    return WindowOutcome(
        action=action, trace_id="t1", window_id=window_id, actor="1", pre_state={},
        post_state={}, verdict=verdict, reason="as the phase said", credit=credit_,
    )  # fmt: skip


def _outcomes():
    p3 = PhaseOutcome(
        "conformance",
        "ran",
        0.0,
        windows=[_window("pass", "unspecific", "w1"), _window("fail", "failed", "w2")],
    )
    p4 = PhaseOutcome(
        "invariant",
        "ran",
        0.125,
        invariants=[InvariantOutcome(n, "safety", v, r, credit=c) for n, v, c, r in P4],
    )
    return p3, p4


class TypedCreditTest(WorldTestCase):
    def setUp(self):
        self.run = make_run(self.model_a, self.spin, submitter=self.alice)
        self.assertTrue(self.run.claim())
        for outcome in _outcomes():
            save_phase(self.run, outcome)
        self.assertTrue(self.run.finish(0.1, {}))

    def test_the_site_knows_the_same_credits_as_the_scorer(self):
        self.assertEqual(set(Credit.values), set(CREDITS))

    def test_each_stored_row_keeps_the_credit_the_scorer_decided(self):
        stored = dict(
            InvariantResult.objects.filter(phase_result__run=self.run).values_list("name", "credit")
        )
        self.assertEqual(stored, {name: c for name, _, c, _ in P4})
        windows = WindowResult.objects.filter(phase_result__run=self.run).order_by("window_id")
        self.assertEqual(list(windows.values_list("credit", flat=True)), ["unspecific", "failed"])

    def test_the_run_page_marks_rows_by_their_credit_not_their_wording(self):
        html = self.client.get(self.run.get_absolute_url()).content.decode()
        table = html.split('id="invariants"')[1].split("</table>")[0]
        marks = dict(
            (name, mark)
            for mark, name in re.findall(r'<tr class="([^"]*)" data-invariant="(\w+)"', table)
        )
        self.assertEqual(marks["Empty"], "not-credited")
        self.assertEqual(marks["Loose"], "not-credited")
        self.assertEqual(marks["Invented"], "not-modelled")
        self.assertEqual(marks["Missing"], "not-modelled")
        self.assertEqual(marks["Worded"], "")
        self.assertEqual(marks["Crashed"], "")

    def test_the_p4_error_count_counts_only_checks_that_could_not_be_made(self):
        html = self.client.get(self.run.get_absolute_url()).content.decode()
        counts = html.split('id="invariant-counts">')[1].split("</p>")[0]
        self.assertEqual(
            counts,
            "1 credited, 1 violated, 2 not credited, 1 not modelled by the spec, 1 not checked, "
            "2 errors (a check that could not be made).",
        )

    def test_the_json_and_csv_exports_carry_the_credit(self):
        body = self.client.get(reverse("run_export_json", args=[self.run.pk])).json()
        phases = {p["phase"]: p for p in body["phases"]}
        self.assertEqual(
            {i["name"]: i["credit"] for i in phases["invariant"]["invariants"]},
            {name: c for name, _, c, _ in P4},
        )
        self.assertEqual(
            [w["credit"] for w in phases["conformance"]["windows"]], ["unspecific", "failed"]
        )
        text = self.client.get(reverse("run_export_csv", args=[self.run.pk])).content.decode()
        rows = [r for r in csv.DictReader(io.StringIO(text)) if r["row"] == "invariant"]
        self.assertEqual({r["name"]: r["credit"] for r in rows}, {n: c for n, _, c, _ in P4})

    def test_the_api_gives_the_credit_of_each_result(self):
        raw, _ = create_token(self.alice, "ci")
        api = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
        body = api.get(reverse("api_run", args=[self.run.pk])).json()
        invariants = next(p for p in body["phases"] if p["phase"] == "invariant")["invariants"]
        self.assertEqual(dict((i["name"], i["credit"]) for i in invariants)["Loose"], "unspecific")


def test_a_result_serialises_with_its_credit_and_reads_back():
    p3, p4 = _outcomes()
    for outcome in (p3, p4):
        data = outcome.to_dict()
        assert PhaseOutcome.from_dict(data) == outcome
    assert [i["credit"] for i in p4.to_dict()["invariants"]] == [c for _, _, c, _ in P4]


def test_a_result_from_a_scorer_before_the_field_carries_its_verdict_s_credit():
    # A scorer container older than the site reports no credit: the verdict's own is kept.
    _, p4 = _outcomes()
    data = p4.to_dict()
    for row in data["invariants"]:
        del row["credit"]
    read = PhaseOutcome.from_dict(data)
    assert [i.credit for i in read.invariants] == [
        {"holds": "credited", "violated": "failed"}.get(v, "error") for _, v, _, _ in P4
    ]


def test_p3_decides_an_unspecific_action_and_the_windows_it_passed():
    contract = load_contract("spin")
    windows = [
        _window("pass", "credited", "w1"),
        _window("pass", "credited", "w2"),
        _window("fail", "failed", "w3", action="AcquireLock"),
    ]

    def refusal(action, _spec):
        return "accepts a fair negative window" if action == "ReleaseLock" else ""

    with mock.patch.object(check.specificity, "refusal", side_effect=refusal):
        actions, _, _ = check._actions(contract, windows, [], [])
    credits = {a.action: a.credit for a in actions}
    assert credits["ReleaseLock"] == "unspecific"
    assert credits["AcquireLock"] == "failed"
    assert [w.credit for w in windows] == ["unspecific", "unspecific", "failed"]
