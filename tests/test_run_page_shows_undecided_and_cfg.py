"""The run page shows what the scorer records: undecided windows apart from failed ones (per
action, in the summary, and grouped by how to resolve them, one group per cause), the
submitter's TLC cfg with each ignored entry's line and reason, a badge for a custom adapter,
and the P4 invariants that read state the adapter invents marked "not modelled by the spec".

The results are real: a spin spec that keeps a variable the traces never show is scored with
SANY and TLC through an adapter and a cfg, and each phase is stored by the job's own bridge
(`jobs.save_phase`), as the worker stores it.
"""

import re

import pytest
import yaml
from django.urls import reverse

from evaluation.inputs.contracts import parse_adapter
from evaluation.phases.conformance.follow import (
    HINT_CAPPED,
    HINT_LEFT,
    HINT_UNBRIDGED,
    HINT_WORK,
)
from evaluation.phases.conformance.whole_behaviour import HINT_UNREACHABLE
from evaluation.pipeline import score_spec
from leaderboard.models import Run, WindowResult
from leaderboard.runs.drilldown import UNDECIDED_SHOWN_PER_HINT
from leaderboard.scoring.jobs import save_phase
from tests.base import WorldTestCase, make_run, make_window_result
from tests.conformance_support import hidden_counter_windows, spec_with_hidden_counter, spin

pytestmark = pytest.mark.tla

KNOWN_HINTS = {HINT_UNBRIDGED, HINT_LEFT, HINT_CAPPED, HINT_WORK}
INVENTED = '[t \\in Threads |-> "lock"]'
ADAPTER = yaml.safe_dump({"variables": {"callType": INVENTED}})
CFG = """SPECIFICATION Spec
CONSTANTS
    Threads = {t1, t2}
INVARIANT TypeOK
CHECK_DEADLOCK FALSE
"""


def section(html: str, anchor: str, end: str = "</section>") -> str:
    return html.split(anchor, 1)[1].split(end, 1)[0]


class ScoredRunPageTest(WorldTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        spec = spec_with_hidden_counter()
        cls.scored = make_run(
            cls.model_a,
            cls.spin,
            spec_text=spec,
            adapter_text=ADAPTER,
            cfg_text=CFG,
            submitter=cls.alice,
        )
        assert cls.scored.claim()
        report = score_spec(
            spec,
            spin(),
            hidden_counter_windows(),
            parse_adapter(ADAPTER, spin()),
            on_phase=lambda outcome: save_phase(cls.scored, outcome),
            cfg_text=CFG,
        )
        assert cls.scored.finish(report.overall, report.fingerprint)

    def setUp(self):
        self.windows = WindowResult.objects.filter(phase_result__run=self.scored)
        self.undecided = self.windows.filter(verdict="undecided")
        self.html = self.client.get(reverse("run_detail", args=[self.scored.pk])).content.decode()

    def test_the_scorecard_counts_undecided_windows_apart_from_failed_ones(self):
        self.assertTrue(self.undecided.exists(), "the hidden counter leaves windows undecided")
        scorecard = section(self.html, 'class="actions scorecard"', "</table>")
        for row in scorecard.split("<tr>")[2:]:
            action = re.search(r"<code>(\w+)</code>", row).group(1)
            mine = self.windows.filter(action=action)
            failed = mine.filter(verdict__in=["fail", "error"]).count()
            undecided = mine.filter(verdict="undecided").count()
            self.assertRegex(row, rf'class="num failed-count[^"]*">{failed}\b')
            self.assertRegex(row, rf'class="num undecided-count[^"]*">(<a [^>]*>)?{undecided}\b')
            if undecided:
                # Undecided is never a pass: the action fails zero tolerance.
                self.assertIn(">fails<", row)
        summary = section(self.html, 'id="conformance-summary"', "</p>")
        self.assertIn(f"{self.undecided.count()} undecided", summary)
        self.assertIn("count as not accepted, like failures", summary)

    def test_undecided_windows_are_grouped_by_how_to_resolve_them(self):
        # One group per cause (the engine's hint texts), each saying how to resolve it and
        # linking every window of its kind.
        hints = sorted(set(self.undecided.values_list("detail__hint", flat=True)))
        self.assertTrue(hints)
        self.assertTrue(set(hints) <= KNOWN_HINTS, hints)
        for hint in hints:
            group = _group_of(self.html, hint)
            mine = self.undecided.filter(detail__hint=hint)
            self.assertIn(f"{mine.count()} undecided window", group)
            for window in mine:
                self.assertIn(reverse("window_detail", args=[self.scored.pk, window.pk]), group)
        self.assertNotIn(f'id="undecided-{len(hints) + 1}"', self.html)

    def test_failing_windows_list_no_undecided_one(self):
        failing = self.html.split('id="failing-windows"', 1)[-1].split('id="undecided"', 1)[0]
        for window in self.undecided:
            self.assertNotIn(f'id="window-{window.pk}"', failing)

    def test_an_undecided_window_page_says_how_to_resolve_it(self):
        window = self.undecided.first()
        html = self.client.get(reverse("window_detail", args=[self.scored.pk, window.pk]))
        self.assertContains(html, f"How to resolve:</strong> {_head(window.detail['hint'])}")
        self.assertContains(html, "#undecided")

    def test_the_cfg_is_shown_with_each_ignored_entry_its_line_and_reason(self):
        cfg = section(self.html, 'id="cfg"', "</table>")
        ignored = re.findall(r'<tr id="cfg-L(\d+)" class="ignored">.*?</tr>', cfg, re.DOTALL)
        self.assertEqual(ignored, ["3", "4", "5"])  # SPECIFICATION is used, the rest is not
        self.assertIn('<a href="#cfg-L3">line 3</a>: <code>Threads = {t1, t2}</code>', cfg)
        self.assertIn("the task contract pins Threads", cfg)
        self.assertIn("the task contract decides which invariants are checked", cfg)
        self.assertIn("CHECK_DEADLOCK is not supported by the pinned TLC", cfg)
        # Shown in its own section, not as raw JSON in the fingerprint table.
        self.assertNotIn("Cfg ignored", self.html)

    def test_a_custom_adapter_carries_a_badge_beside_the_verified_one(self):
        heading = section(self.html, "<h1>", "</h1>")
        self.assertIn('<span class="badge verified">verified</span>', heading)
        self.assertIn('class="badge adapter" id="custom-adapter-badge" href="#adapter"', heading)
        self.assertIn("callType", section(self.html, 'id="adapter"', "</pre>"))

    def test_invariants_over_invented_state_are_marked_not_modelled(self):
        invariants = section(self.html, 'id="invariants"', "</table>")
        self.assertIn("The adapter maps <code>callType</code>", invariants)
        marks = re.findall(r'<tr class="([^"]*)" data-invariant="(\w+)"', invariants)
        rows = {name: mark for mark, name in marks}
        self.assertEqual(rows["BlockingVsNonBlockingSemantics"], "not-modelled")
        self.assertEqual(rows["MutualExclusion"], "")  # reads only modelled state
        row = invariants.split('data-invariant="BlockingVsNonBlockingSemantics"')[1].split("</tr>")[
            0
        ]
        self.assertIn('<span class="badge not-modelled">not modelled by the spec</span>', row)

    def test_many_undecided_windows_of_a_kind_are_capped_until_expanded(self):
        first = self.undecided.first()
        kind = self.undecided.filter(detail__hint=first.detail["hint"])
        extra = UNDECIDED_SHOWN_PER_HINT + 5 - kind.count()
        for i in range(extra):
            make_window_result(
                first.phase_result,
                first.action,
                verdict="undecided",
                window_id=f"extra{i}",
                reason=first.reason,
                detail=first.detail,
            )
        url = reverse("run_detail", args=[self.scored.pk])
        capped = _group_of(self.client.get(url).content.decode(), first.detail["hint"])
        self.assertEqual(capped.count('class="window-link"'), UNDECIDED_SHOWN_PER_HINT)
        self.assertIn(f"Show all {UNDECIDED_SHOWN_PER_HINT + 5} windows of this kind", capped)
        expanded = self.client.get(url, {"all_undecided": "1"}).content.decode()
        self.assertEqual(
            _group_of(expanded, first.detail["hint"]).count('class="window-link"'),
            UNDECIDED_SHOWN_PER_HINT + 5,
        )


def _group_of(html: str, hint: str) -> str:
    groups = []
    while f'id="undecided-{len(groups) + 1}"' in html:
        groups.append(section(html, f'id="undecided-{len(groups) + 1}"'))
    (group,) = [g for g in groups if f"How to resolve:</strong> {_head(hint)}" in g]
    return group


def _head(hint: str) -> str:
    """The hint's first words, before any character the page escapes."""
    return hint.split("'")[0][:30]


class UnscoredCfgTest(WorldTestCase):
    def test_a_queued_run_shows_its_cfg_and_says_the_ignored_entries_come_later(self):
        run = make_run(self.model_a, self.spin, cfg_text=CFG, status=Run.Status.QUEUED)
        response = self.client.get(reverse("run_detail", args=[run.pk]))
        self.assertContains(response, "Your TLC config")
        self.assertContains(response, "listed here once the run has been scored")
        self.assertNotContains(response, 'class="ignored"')
        self.assertContains(response, 'id="custom-adapter-badge"', count=0)


class NeverReachedWindowPageTest(WorldTestCase):
    """A window that fails because no state of the spec's whole behaviour shows it: its page
    gives the reason with the number of states explored, and how to resolve it."""

    def test_the_window_page_says_the_whole_behaviour_was_explored_and_how_to_resolve_it(self):
        spec = spec_with_hidden_counter(bounded=True)
        run = make_run(self.model_a, self.spin, spec_text=spec, submitter=self.alice)
        assert run.claim()
        report = score_spec(
            spec,
            spin(),
            hidden_counter_windows(),
            on_phase=lambda outcome: save_phase(run, outcome),
        )
        assert run.finish(report.overall, report.fingerprint)
        never = WindowResult.objects.filter(
            phase_result__run=run, verdict="fail", detail__unreachable_in__gt=0
        )
        # The six ReleaseLock windows, and their symmetry probes (permuted threads).
        self.assertGreaterEqual(never.count(), 6)
        window = never.first()
        html = self.client.get(reverse("window_detail", args=[run.pk, window.pk]))
        self.assertContains(html, f"{window.detail['unreachable_in']} distinct states")
        self.assertContains(html, f"How to resolve:</strong> {_head(HINT_UNREACHABLE)}")
