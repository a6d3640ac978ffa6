"""Run pages in plain words: labels, tool versions, the auxiliary-state rule, one value notation,
and reported runs that say so instead of showing a status and timestamps."""

from django.urls import reverse

from leaderboard.shared.plain_words import aux_rule_sentence, label, tlc_value_text, tool_version
from tests.base import WorldTestCase, make_action_result, make_invariant_result, make_run

PHASES = {"syntax": 1.0, "runtime": 1.0, "conformance": 0.5, "invariant": 0.0}
FINGERPRINT = {
    "jar_sha256": "58c6df9a1045beb341ee947bc640fe8d89988ad1d0b700e392aa8dd97502129a",
    "tlc_version": "TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)",
    "sany_version": "SANY2 Version 2.1 created 24 February 2014",
    "seeds": [1, 2, 3],
    "window_count": 12,
}


class PlainWordsTest(WorldTestCase):
    def test_tool_banners_become_name_version_and_year(self):
        self.assertEqual(tool_version(FINGERPRINT["tlc_version"]), "TLC 2.15 (2020)")
        self.assertEqual(tool_version(FINGERPRINT["sany_version"]), "SANY 2.1 (2014)")
        java = 'openjdk version "17.0.15" 2025-04-15'
        self.assertEqual(tool_version(java), "OpenJDK 17.0.15 (2025)")

    def test_tlc_values_are_shown_in_the_windows_notation(self):
        self.assertEqual(
            tlc_value_text('(0 :> "idle" @@ 1 :> "locked")'), '{"0": "idle", "1": "locked"}'
        )
        self.assertEqual(tlc_value_text("[owner |-> n1, q |-> <<1, 2>>]"),
                         '{"owner": "n1", "q": [1, 2]}')  # fmt: skip
        self.assertEqual(tlc_value_text("{3, 1}"), "[1, 3]")
        self.assertEqual(tlc_value_text("TRUE"), "true")
        # Text the reader cannot parse is shown as TLC printed it, never dropped.
        self.assertEqual(tlc_value_text("<<1, "), "<<1, ")

    def test_every_fingerprint_key_gets_a_label(self):
        self.assertEqual(label("jar_sha256"), "tla2tools.jar (SHA-256)")
        self.assertEqual(label("some_new_key"), "Some new key")

    def test_the_auxiliary_state_rule_is_one_sentence(self):
        text = aux_rule_sentence({"rule": "typeok", "description": "free variables (rule 2)"})
        self.assertIn("TypeOK", text)
        self.assertNotIn("rule 2", text)

    def test_a_state_mapping_the_spec_refuted_is_named_beside_the_p3_score(self):
        run = make_run(self.model_a, self.spin, phases=PHASES, fingerprint=FINGERPRINT)
        conformance = run.phase_results.get(phase="conformance")
        make_action_result(conformance, "AcquireLock", 96, 152)
        text = "state mapping for pc refused: the spec has pc = ... but the mapping gives ..."
        conformance.details = {
            "auxiliary_state": {"rule": "explored", "description": "..."},
            "state_mapping": {"credited": [], "refused": [{"variable": "pc", "text": text}]},
        }
        conformance.save(update_fields=["details"])
        page = self.client.get(reverse("run_detail", args=[run.pk])).content.decode()
        self.assertIn("Adapter state mapping not used:</strong> state mapping for pc refused", page)
        self.assertIn("the action works from every one of them", page)

    def test_a_verified_run_page_uses_labels_and_converted_counterexamples(self):
        run = make_run(self.model_a, self.spin, phases=PHASES, fingerprint=FINGERPRINT)
        invariants = run.phase_results.get(phase="invariant")
        make_invariant_result(invariants, "MutualExclusion", "violated", counterexample=[
            {"step": 1, "action": "Init", "vars": {"pc": '(0 :> "idle" @@ 1 :> "idle")'}},
            {"step": 2, "action": "Acquire", "vars": {"pc": '(0 :> "cs" @@ 1 :> "cs")'}},
        ])  # fmt: skip
        page = self.client.get(reverse("run_detail", args=[run.pk])).content.decode()
        self.assertIn("TLC 2.15 (2020)", page)
        self.assertNotIn("jar_sha256", page)
        self.assertNotIn("Day Month", page)
        self.assertIn("tla2tools.jar (SHA-256)", page)
        self.assertIn("{&quot;0&quot;: &quot;cs&quot;, &quot;1&quot;: &quot;cs&quot;}", page)
        self.assertNotIn(":&gt;", page)

    def test_a_reported_run_says_reported_by_sysmobench_without_status_or_times(self):
        run = make_run(self.model_a, self.spin, phases=PHASES, provenance="reported",
                       source="SysMoBench paper")  # fmt: skip
        page = self.client.get(reverse("run_detail", args=[run.pk])).content.decode()
        self.assertIn("Reported by SysMoBench", page)
        self.assertNotIn(">Ran<", page)
        self.assertNotIn("Submitted ", page)
        self.assertNotIn(" UTC", page)
        # spin has no imported trace corpus here: its reported P3 came from the original harness.
        self.assertIn("original SysMoBench harness", page)

    def test_an_accepted_window_shows_no_spec_alternative(self):
        from leaderboard.runs.drilldown import window_rows
        from tests.base import make_window_result

        run = make_run(self.model_a, self.spin, phases=PHASES)
        differences = [{"variable": "lockState", "trace": "locked", "spec": "unlocked"}]
        closest = [{"successor": {"lockState": "unlocked"}, "differences": differences}]
        conformance = run.phase_results.get(phase="conformance")
        passed = make_window_result(conformance, verdict="pass", detail={"closest": closest})
        failed = make_window_result(conformance, verdict="fail", detail={"closest": closest})
        self.assertFalse(any(r["differs"] or r["any_spec"] for r in window_rows(passed)))
        self.assertTrue(any(r["differs"] and r["any_spec"] for r in window_rows(failed)))
