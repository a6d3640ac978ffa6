"""The run page: phase cards, syntax table, scorecard, failing windows, invariants, source."""

import re

from django.urls import reverse

from tests.base import (
    WorldTestCase,
    make_action_result,
    make_invariant_result,
    make_phase_result,
    make_run,
    make_window_result,
)

SPEC = """---- MODULE spin ----
VARIABLES lockState, pc
Init == lockState = "unlocked"
AcquireLock(t) == lockState' = "locked" /\\ UNCHANGED pc
====
"""


class RunPageTest(WorldTestCase):
    def setUp(self):
        self.run = make_run(
            self.model_a,
            self.spin,
            spec_text=SPEC,
            fingerprint={
                "jar_sha256": "58c6df",
                "windows_sha256": "ab" * 32,
                "tlc_flags": {"conformance": ["-workers", "1"]},
            },
        )
        self.syntax = make_phase_result(
            self.run,
            "syntax",
            0.5,
            details={
                "definitions": [
                    {"name": "Init", "line": 3, "ok": True},
                    {"name": "AcquireLock", "line": 4, "ok": False,
                     "message": "line 4, col 40 to line 4, col 41 of module spin "
                                "Unknown operator: 'pcx'"},
                ]
            },
            duration_seconds=1.25,
        )  # fmt: skip
        self.conformance = make_phase_result(
            self.run, "conformance", 0.0, details={"pooled_rate": 0.8, "distinct_cases": 3}
        )
        make_action_result(
            self.conformance,
            "AcquireLock",
            3,
            4,
            detail={"specificity": {"checked": 40, "wrongly_accepted": 3, "by_family": {}}},
        )
        make_action_result(self.conformance, "ReleaseLock", 5, 5)
        self.window = make_window_result(
            self.conformance,
            "AcquireLock",
            window_id="w17",
            trace_id="trace_07",
            actor="2",
            reason="no successor matches the post-state",
            detail={"diff": {"lockState": {"trace": "locked", "spec": ["unlocked"]}}},
        )
        make_window_result(self.conformance, "ReleaseLock", verdict="pass", window_id="w18")
        invariants = make_phase_result(self.run, "invariant", 0.5)
        make_invariant_result(invariants, "MutualExclusion", verdict="violated", counterexample=[
            {"lockState": "unlocked", "pc": {"0": "idle", "1": "idle"}},
            {"lockState": "locked", "pc": {"0": "locked", "1": "idle"}},
        ])  # fmt: skip
        make_invariant_result(invariants, "NoDeadlock", verdict="holds")
        self.assertTrue(self.run.claim())
        self.assertTrue(self.run.finish(0.2, self.run.fingerprint))

    def page(self, **params):
        return self.client.get(reverse("run_detail", args=[self.run.pk]), params)

    def test_it_shows_four_phase_cards(self):
        html = self.page().content.decode()
        cards = re.findall(r'<article class="phase-card" id="phase-(\w+)"', html)
        self.assertEqual(cards, ["syntax", "runtime", "conformance", "invariant"])
        syntax_card = html.split('id="phase-syntax"')[1].split("</article>")[0]
        self.assertIn("50.0", syntax_card)
        self.assertIn("1.2 s", syntax_card)
        runtime_card = html.split('id="phase-runtime"')[1].split("</article>")[0]
        self.assertIn("not reached", runtime_card)
        self.assertIn("58c6df", syntax_card)
        self.assertNotIn("<dl", runtime_card)
        conformance_card = html.split('id="phase-conformance"')[1].split("</article>")[0]
        self.assertIn("<code>abababababab</code>", conformance_card)
        self.assertIn("-workers 1", conformance_card)

    def test_it_lists_definitions_and_anchors_errors_to_spec_lines(self):
        html = self.page().content.decode()
        self.assertIn("Unknown operator: &#x27;pcx&#x27;", html)
        line4 = html.split('<tr id="L4" class="has-error">')[1].split("</tr>")[0]
        self.assertIn("AcquireLock: line 4", line4)
        self.assertIn('<tr id="L3" class="">', html)
        self.assertIn('<a href="#L4">line 4</a>', html)

    def test_it_shows_the_scorecard_with_zero_tolerance_and_specificity(self):
        html = self.page().content.decode()
        scorecard = html.split('class="actions scorecard"')[1].split("</table>")[0]
        acquire, release = scorecard.split("<tr>")[2:4]
        self.assertIn("75%", acquire)
        self.assertIn(">fails<", acquire)
        self.assertIn("3 of 40 negative windows wrongly accepted", acquire)
        self.assertIn(">passes<", release)
        summary = html.split('id="conformance-summary"')[1].split("</p>")[0]
        self.assertIn("2 windows checked (3 distinct checks), 1 not accepted", summary)
        self.assertIn("pooled pass rate 80.0%", summary)

    def test_it_shows_runtime_coverage_per_action(self):
        runtime = make_phase_result(self.run, "runtime", 0.5)
        fired = {"line": 4, "generated": 12, "distinct": 7, "fired": True, "error": None}
        failed = {"line": 9, "generated": 0, "fired": True, "error": {"message": "apply pc to 3"}}
        make_action_result(runtime, "AcquireLock", 1, 1, detail=fired)
        make_action_result(runtime, "ReleaseLock", 0, 1, detail=failed)
        html = self.page().content.decode()
        table = html.split('class="actions runtime-actions"')[1].split("</table>")[0]
        acquire, release = table.split("<tr>")[2:4]
        self.assertIn('href="#L4"', acquire)
        self.assertIn('data-count="generated">12<', acquire)
        self.assertIn('data-count="distinct">7<', acquire)
        self.assertNotIn("None", acquire)
        self.assertIn(">no<", release)
        self.assertIn("apply pc to 3", release)

    def test_it_says_why_an_action_that_fires_does_not_count(self):
        runtime = make_phase_result(self.run, "runtime", 0.0)
        note = "fires, but never changes what the contract observes"
        counter = {"line": 4, "generated": 6, "fired": True, "error": None, "note": note}
        stutter = {"line": 9, "generated": 3, "fired": True, "error": None, "note": "only stutters"}
        make_action_result(runtime, "AcquireLock", 0, 1, detail=counter)
        make_action_result(runtime, "Idle", 0, 0, detail=stutter)
        html = self.page().content.decode()
        table = html.split('class="actions runtime-actions"')[1].split("</table>")[0]
        acquire, idle = table.split("<tr>")[2:4]
        self.assertIn(">no<", acquire)
        self.assertIn(note, acquire)
        self.assertIn("left out", idle)
        self.assertIn("only stutters", idle)

    def test_it_highlights_only_the_differing_variable_of_a_failing_window(self):
        html = self.page().content.decode()
        section = html.split('id="action-AcquireLock"')[1].split("</section>")[0]
        self.assertIn("trace_07", section)
        self.assertIn("actor <code>2</code>", section)
        self.assertRegex(section, r'<tr class="differs" data-variable="lockState">')
        self.assertRegex(section, r'<tr class="" data-variable="pc">')
        self.assertIn(reverse("window_detail", args=[self.run.pk, self.window.pk]), section)
        self.assertNotIn('id="action-ReleaseLock"', html)

    def test_it_reads_the_closest_successor_diff_of_the_conformance_phase(self):
        window = make_window_result(
            self.conformance,
            "ReleaseLock",
            window_id="w30",
            pre_state={"lockState": "locked", "pc": {"0": "idle", "1": "locked"}},
            post_state={"lockState": "unlocked", "pc": {"0": "idle", "1": "idle"}},
            detail={"closest": [{
                "successor": {"lockState": "unlocked", "pc": {"0": "idle", "1": "locked"}},
                "differences": [{"variable": "pc", "key": "1", "trace": "idle", "spec": "locked"}],
            }]},
        )  # fmt: skip
        response = self.client.get(reverse("window_detail", args=[self.run.pk, window.pk]))
        html = response.content.decode()
        pc_row = html.split('<tr class="differs" data-variable="pc">')[1].split("</tr>")[0]
        self.assertIn("at 1", pc_row)
        self.assertIn("&quot;1&quot;: &quot;locked&quot;", pc_row)
        self.assertIn('<tr class="" data-variable="lockState">', html)

    def test_the_window_permalink_shows_that_window(self):
        response = self.client.get(reverse("window_detail", args=[self.run.pk, self.window.pk]))
        self.assertContains(response, "Window w17 of AcquireLock")
        self.assertContains(response, '<tr class="differs" data-variable="lockState">')

    def test_a_window_of_another_run_is_not_found_under_this_run(self):
        other = make_run(self.model_b, self.spin, phases={"syntax": 1.0})
        url = reverse("window_detail", args=[other.pk, self.window.pk])
        self.assertEqual(self.client.get(url).status_code, 404)

    def test_it_renders_a_counterexample_as_a_table_of_states(self):
        html = self.page().content.decode()
        section = html.split('id="invariant-MutualExclusion"')[1].split("</section>")[0]
        self.assertIn("2 states", section)
        self.assertIn("<th>lockState</th>", section)
        rows = section.split("<tbody>")[1].split("</tr>")
        self.assertIn('class="changed"><code>&quot;locked&quot;</code>', rows[1])
        self.assertNotIn('id="invariant-NoDeadlock"', html)

    def test_it_reads_the_invariant_phase_trace_format_with_a_lasso(self):
        invariants = self.run.phase_results.get(phase="invariant")
        make_invariant_result(invariants, "EventuallyReleased", kind="liveness", verdict="violated",
                              counterexample=[
            {"step": 1, "action": "Initial predicate", "vars": {"lockState": '"unlocked"'}},
            {"step": 2, "action": "AcquireLock", "vars": {"lockState": '"locked"'}},
            {"step": 3, "action": "AcquireLock", "back_to": 2},
        ])  # fmt: skip
        html = self.page().content.decode()
        section = html.split('id="invariant-EventuallyReleased"')[1].split("</section>")[0]
        self.assertEqual(re.findall(r"<th>(\w+)</th>", section), ["step", "lockState"])
        self.assertIn("AcquireLock (loops back to state 2)", section)
        self.assertIn('class="changed"><code>&quot;locked&quot;</code>', section)

    def test_a_skipped_phase_says_why(self):
        make_phase_result(self.run, "runtime", 0.0, status="skipped",
                          details={"reason": "the module does not parse"})  # fmt: skip
        html = self.page().content.decode()
        card = html.split('id="phase-runtime"')[1].split("</article>")[0]
        self.assertIn("Skipped", card)
        self.assertIn("the module does not parse", card)

    def test_it_caps_failing_windows_per_action_until_expanded(self):
        for i in range(12):
            make_window_result(self.conformance, "AcquireLock", window_id=f"x{i}")
        html = self.page().content.decode()
        self.assertEqual(html.count('class="permalink"'), 10)
        self.assertIn("Show all 13 failing windows of AcquireLock", html)
        expanded = self.page(all_windows="AcquireLock").content.decode()
        self.assertEqual(expanded.count('class="permalink"'), 13)

    def test_it_marks_a_non_identity_adapter(self):
        self.assertNotContains(self.page(), "scored through a non-identity adapter")
        self.run.adapter_text = (
            'variables:\n  lockState: \'IF lock THEN "locked" ELSE "unlocked"\'\n'
        )
        self.run.save()
        response = self.page()
        self.assertContains(response, "scored through a non-identity adapter")
        self.assertContains(response, "IF lock THEN")

    def test_a_finished_page_does_not_poll(self):
        self.assertNotContains(self.page(), "run_progress.js")

    def test_a_reported_run_shows_its_source_and_no_drill_down(self):
        reported = make_run(
            self.model_b,
            self.spin,
            phases={"syntax": 1.0, "runtime": 0.5},
            provenance="reported",
            source="SysMoBench paper, Table 3",
            spec_text="",
        )
        response = self.client.get(reverse("run_detail", args=[reported.pk]))
        self.assertContains(response, "SysMoBench paper, Table 3")
        self.assertContains(response, "no spec, per-action result or failing window to drill into")
        self.assertNotContains(response, 'id="spec"')
        self.assertContains(response, "100.0")

    def test_an_unknown_run_is_404(self):
        self.assertEqual(self.client.get(reverse("run_detail", args=[999999])).status_code, 404)


class RunStatusTest(WorldTestCase):
    def test_it_reports_phases_as_they_finish(self):
        run = make_run(self.model_a, self.spin, status="running")
        make_phase_result(run, "syntax", 1.0, duration_seconds=0.8)
        body = self.client.get(reverse("run_status", args=[run.pk])).json()
        self.assertEqual(body["status"], "running")
        self.assertFalse(body["finished"])
        self.assertIsNone(body["queue_position"])
        self.assertEqual(
            [(p["phase"], p["status"], p["score"]) for p in body["phases"]],
            [("syntax", "ran", 1.0), ("runtime", "pending", None),
             ("conformance", "pending", None), ("invariant", "pending", None)],
        )  # fmt: skip

    def test_a_running_page_polls_the_status_endpoint(self):
        run = make_run(self.model_a, self.spin, status="running")
        response = self.client.get(reverse("run_detail", args=[run.pk]))
        self.assertContains(response, "run_progress.js")
        self.assertContains(response, f'data-status-url="{reverse("run_status", args=[run.pk])}"')
