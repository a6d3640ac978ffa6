"""A failing window says why: the first conjunct of the action that TLC found false at the
window's pre-state (for a window where the action is not enabled), and where the action sets a
variable its closest successor gets wrong. Expected lines and texts are read from the spec text
the test builds, values from the windows themselves."""

import pytest
from django.urls import reverse

from evaluation.phases.conformance import check_conformance
from evaluation.phases.conformance.blocking import guards
from evaluation.tla.parsed import parse_spec
from tests.base import (
    WorldTestCase,
    make_phase_result,
    make_run,
    make_window_result,
)
from tests.conformance_support import replace_once, spin, spin_spec, spin_windows

REFERENCE_GUARD = '  /\\ pc[t] \\in {"idle", "acquiring"}\n'


def _line_of(text: str, fragment: str) -> int:
    assert text.count(fragment) == 1
    return text[: text.index(fragment)].count("\n") + 1


def _failing(outcome, action):
    return [w for w in outcome.windows if w.action == action and w.verdict == "fail"]


@pytest.mark.tla
def test_a_guard_the_trace_contradicts_is_named_with_its_line_and_values():
    spec = replace_once(spin_spec(), REFERENCE_GUARD, '  /\\ pc[t] = "acquiring"\n')
    windows = spin_windows()
    outcome = check_conformance(spec, spin(), windows)
    from_idle = [
        w
        for w in windows
        if w["action"] == "AcquireLock" and w["pre_state"]["pc"][w["actor"]] == "idle"
    ]
    failing = _failing(outcome, "AcquireLock")
    assert from_idle and {w.window_id for w in failing} == {str(w["window_id"]) for w in from_idle}
    line = _line_of(spec, '  /\\ lockState = "unlocked"\n  /\\ pc[t] = "acquiring"\n') + 1
    for window in failing:
        blocking = window.detail["blocking_conjunct"]
        assert (blocking["line"], blocking["text"]) == (line, 'pc[t] = "acquiring"')
        assert blocking["values"]["t"] == window.actor
        assert blocking["values"]["pc"] == window.pre_state["pc"]
        assert f"(line {line}) is false" in window.reason
    listed = outcome.details["failing_windows"]
    assert all(row["blocking_conjunct"]["line"] == line for row in listed)


@pytest.mark.tla
def test_a_guard_inside_a_helper_is_named_where_it_is_written_with_comments_and_layout_kept():
    spec = replace_once(
        spin_spec(),
        REFERENCE_GUARD,
        "  /\\ Ready(t) \\* the helper holds the guard\n",
    )
    helper = (
        "Ready(u) ==\n"
        "  /\\ u \\in Threads\n"
        '  /\\ \\/ pc[u] = "acquiring" \\* spinning only\n'
        '     \\/ pc[u] = "locked"\n'
    )
    spec = replace_once(spec, "AcquireLock(t) ==\n", helper + "\nAcquireLock(t) ==\n")
    outcome = check_conformance(spec, spin(), spin_windows())
    failing = _failing(outcome, "AcquireLock")
    assert failing
    line = _line_of(spec, '\\/ pc[u] = "acquiring" \\* spinning only')
    for window in failing:
        blocking = window.detail["blocking_conjunct"]
        assert blocking["line"] == line
        assert blocking["text"] == '\\/ pc[u] = "acquiring" \\/ pc[u] = "locked"'
        assert blocking["values"] == {"pc": window.pre_state["pc"], "u": window.actor}


@pytest.mark.tla
def test_a_wrong_post_state_names_the_conjunct_that_sets_the_variable():
    release = '  /\\ callType\' = [callType EXCEPT ![t] = "none"]'
    wrong = '  /\\ pc\' = [pc EXCEPT ![t] = "acquiring"]\n' + release
    spec = replace_once(spin_spec(), '  /\\ pc\' = [pc EXCEPT ![t] = "idle"]\n' + release, wrong)
    outcome = check_conformance(spec, spin(), spin_windows()[:60])
    failing = _failing(outcome, "ReleaseLock")
    assert failing
    line = _line_of(spec, wrong)
    for window in failing:
        assert "blocking_conjunct" not in window.detail
        setters = window.detail["setting_conjuncts"]
        assert setters == [
            {"variable": "pc", "line": line, "text": 'pc\' = [pc EXCEPT ![t] = "acquiring"]'}
        ]
        assert f"the action sets pc on line {line}" in window.reason


def test_only_a_single_call_has_guards_to_name():
    spec = parse_spec(spin_spec())
    assert [g.text for g in guards(spec, "AcquireLock(actor)")] == [
        'lockState = "unlocked"',
        'pc[t] \\in {"idle", "acquiring"}',
    ]
    # A quantified or disjunctive mapping has no one conjunct that blocks it.
    assert guards(spec, '\\E c \\in {"lock"} : AcquireLock(c)') == []
    assert guards(spec, "AcquireLock(actor) \\/ ReleaseLock(actor)") == []
    assert guards(spec, "NoSuchAction(actor)") == []
    # Arity must match: a wrong call is the adapter check's to refuse, not this one's to guess.
    assert guards(spec, "AcquireLock(actor, 1)") == []


class WindowPageShowsTheBlockingConjunct(WorldTestCase):
    def test_the_window_page_shows_the_false_conjunct_its_line_and_values(self):
        run = make_run(self.model_a, self.spin)
        phase = make_phase_result(run, "conformance", 0.5)
        window = make_window_result(
            phase,
            reason="the action is not enabled from the window's pre-state",
            detail={
                "blocking_conjunct": {
                    "line": 33,
                    "text": 'pc[t] = "acquiring"',
                    "values": {"pc": {"0": "idle", "1": "idle"}, "t": "1"},
                }
            },
        )
        page = self.client.get(reverse("window_detail", args=[run.pk, window.pk]))
        self.assertContains(page, 'id="blocking-conjunct"')
        self.assertContains(page, f'href="{run.get_absolute_url()}#L33"')
        self.assertContains(page, "pc[t] = &quot;acquiring&quot;")
        self.assertContains(page, "&quot;idle&quot;")

    def test_the_window_page_points_at_the_conjunct_that_sets_a_differing_variable(self):
        run = make_run(self.model_a, self.spin)
        phase = make_phase_result(run, "conformance", 0.5)
        setter = {"variable": "pc", "line": 45, "text": 'pc\' = [pc EXCEPT ![t] = "acquiring"]'}
        window = make_window_result(phase, detail={"setting_conjuncts": [setter]})
        page = self.client.get(reverse("window_detail", args=[run.pk, window.pk]))
        self.assertContains(page, 'id="setting-conjuncts"')
        self.assertContains(page, f'href="{run.get_absolute_url()}#L45"')

    def test_a_window_without_one_shows_no_such_section(self):
        run = make_run(self.model_a, self.spin)
        phase = make_phase_result(run, "conformance", 0.5)
        window = make_window_result(phase, detail={})
        page = self.client.get(reverse("window_detail", args=[run.pk, window.pk]))
        self.assertNotContains(page, 'id="blocking-conjunct"')
        self.assertNotContains(page, 'id="setting-conjuncts"')
