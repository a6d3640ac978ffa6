"""Run pages in a real headless Chromium: upload to finished scores, failing windows, compare."""

from pathlib import Path

import pytest
from django.conf import settings as django_settings
from selenium.webdriver.support.ui import Select

from evaluation.inputs.contracts import load_contract
from leaderboard.models import Run
from leaderboard.tasks.importing import import_corpus, sync_task
from tests.base import (
    make_action_result,
    make_model,
    make_phase_result,
    make_run,
    make_task,
    make_window_result,
)
from tests.browser import browser_fixture, save_screenshot, wait_for, wait_until  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REFERENCE = Path(django_settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla"
PHASES = {"syntax": 1.0, "runtime": 1.0, "conformance": 1.0, "invariant": 0.5}


@pytest.mark.tla
def test_a_spec_uploaded_through_the_form_is_scored_to_the_end(browser, live_server, settings):
    settings.RQ_FORCE_INLINE = True  # the job runs in a thread of the live server, no Redis
    contract = load_contract("spin", settings.TASKS_DATA_DIR)
    task, _ = sync_task(contract)
    import_corpus(task, contract, Path(settings.SYSMOBENCH_DATA_DIR))

    browser.get(live_server.url + "/")
    browser.find_element("link text", "Submit a spec").click()
    # Submitting needs an account: sign up on the way, and land back on the form.
    browser.find_element("link text", "create an account").click()
    wait_for(browser, "#signup-form")
    browser.find_element("id", "id_username").send_keys("browser-user")
    browser.find_element("id", "id_password1").send_keys("a long browser password")
    browser.find_element("id", "id_password2").send_keys("a long browser password")
    browser.find_element("css selector", "#signup-form button[type=submit]").click()
    wait_for(browser, "form.submit-form")
    Select(browser.find_element("id", "id_task")).select_by_value("spin")
    browser.find_element("id", "id_new_model_name").send_keys("Browser Model")
    browser.find_element("id", "id_new_model_organisation").send_keys("Test Org")
    # First a slip: the pasted spec extends a module that is not allowed. The lint says so next
    # to the field, queues nothing, and keeps everything typed.
    wrong = REFERENCE.read_text().replace(
        "EXTENDS TLC, FiniteSets", "EXTENDS TLC, FiniteSets, IOUtils"
    )
    browser.execute_script("document.getElementById('id_spec_text').value = arguments[0]", wrong)
    browser.find_element("id", "submit-button").click()
    error = wait_for(browser, "#errors-spec_text")
    assert "EXTENDS IOUtils is not allowed" in error.text
    assert "IOUtils" in browser.find_element("id", "id_spec_text").get_attribute("value")
    assert browser.find_element("id", "id_new_model_name").get_attribute("value") == "Browser Model"
    assert not Run.objects.exists()
    save_screenshot(browser, "run_upload_lint")
    # Then the real file; an uploaded file takes precedence over the pasted text.
    browser.find_element("id", "id_spec_file").send_keys(str(REFERENCE))
    browser.find_element("id", "submit-button").click()

    wait_until(browser, lambda d: "/runs/" in d.current_url)
    run = Run.objects.get()
    assert run.spec_text == REFERENCE.read_text()
    assert (run.submitter.username, run.model.owner.username) == ("browser-user", "browser-user")
    # The page follows the run (status.json) and reloads itself once the run has ended.
    wait_for(browser, "#run-status.status-finished, #run-status.status-failed", timeout=240)
    run.refresh_from_db()
    assert run.status == "finished", run.failure_reason
    scores = [e.text for e in browser.find_elements("css selector", ".phase-card .score")]
    assert len(scores) == 4 and all(s != "—" for s in scores), scores
    assert scores[0] == "100.0"  # the reference spec parses
    assert browser.find_element("id", "overall-score").text == f"{100 * run.overall:.1f}"
    save_screenshot(browser, "run_upload")


def test_the_run_page_highlights_the_differing_variable_of_a_failing_window(browser, live_server):
    spin, model = make_task("spin"), make_model("model-a")
    run = make_run(model, spin, phases={"syntax": 1.0, "runtime": 1.0, "conformance": 0.0})
    conformance = run.phase_results.get(phase="conformance")
    make_action_result(conformance, "AcquireLock", 0, 1)
    window = make_window_result(
        conformance,
        "AcquireLock",
        window_id="w42",
        trace_id="trace_03",
        actor="1",
        reason="no successor of the spec matches the post-state",
        detail={"diff": {"lockState": {"trace": "locked", "spec": "unlocked"}}},
    )
    make_window_result(
        conformance,
        "ReleaseLock",
        verdict="undecided",
        window_id="w43",
        reason="no pre-state of the spec could be built for this window (held)",
        detail={"hint": "add a state mapping for held to the adapter (`state:`)"},
    )
    browser.get(f"{live_server.url}/runs/{run.pk}/")
    row = wait_for(browser, "#action-AcquireLock tr.differs")
    # An undecided window is not listed as failing but apart, with how to resolve it, visibly.
    resolve = browser.find_element("css selector", "#undecided-1 .resolve")
    assert "Add a state mapping for held" in resolve.text
    assert resolve.value_of_css_property("background-color") not in ("rgba(0, 0, 0, 0)", "")
    assert not browser.find_elements("css selector", "#action-ReleaseLock")
    assert row.get_attribute("data-variable") == "lockState"
    # The highlight is visible, not just a class: the row has a coloured background.
    assert row.value_of_css_property("background-color") not in ("rgba(0, 0, 0, 0)", "")
    others = browser.find_elements("css selector", "#action-AcquireLock tr[data-variable='pc']")
    assert [o.get_attribute("class") for o in others] == [""]
    browser.execute_script("document.getElementById('failing-windows').scrollIntoView()")
    save_screenshot(browser, "run_failing_windows")

    browser.find_element("css selector", "#action-AcquireLock a.permalink").click()
    wait_until(browser, lambda d: d.current_url.endswith(f"/windows/{window.pk}/"))
    assert "Window w42 of AcquireLock" in browser.find_element("tag name", "h1").text


def test_the_compare_page_draws_both_models(browser, live_server):
    spin, etcd = make_task("spin", position=1), make_task("etcd", position=2)
    a, b = make_model("model-a"), make_model("model-b", organisation="Org B")
    for model, conformance in ((a, 1.0), (b, 0.0)):
        run = make_run(model, spin, phases={**PHASES, "conformance": conformance})
        make_action_result(run.phase_results.get(phase="conformance"), "AcquireLock",
                           1 if conformance else 0, 1)  # fmt: skip
    make_run(a, etcd, phases=PHASES)

    browser.get(live_server.url + "/")
    browser.find_element("link text", "Compare").click()
    Select(wait_for(browser, "#pick-a")).select_by_value("model-a")
    Select(browser.find_element("id", "pick-b")).select_by_value("model-b")
    browser.find_element("css selector", "#pick-b").submit()
    wait_until(browser, lambda d: "a=model-a" in d.current_url and "b=model-b" in d.current_url)
    wait_for(browser, "#compare-chart .main-svg")
    bars = browser.find_elements("css selector", "#compare-chart .trace.bars")
    assert len(bars) == 2
    row = browser.find_element("css selector", '#task-spin tr[data-action="AcquireLock"]').text
    assert "1/1" in row and "0/1" in row
    note = browser.find_element("id", "paired-note").text
    assert "1 differ" in note and "1 passes in A only" in note
    save_screenshot(browser, "compare")

    # The URL alone reproduces the comparison.
    browser.get(browser.current_url)
    wait_for(browser, "#compare-chart .main-svg")
    assert "AcquireLock" in browser.find_element("css selector", "#task-spin .actions-sbs").text


def test_the_run_page_follows_a_running_run_phase_by_phase(browser, live_server):
    run = make_run(make_model("model-a"), make_task("spin"), status="running")
    make_phase_result(run, "syntax", 1.0, duration_seconds=1.5)
    browser.get(f"{live_server.url}/runs/{run.pk}/")
    assert wait_for(browser, "#phase-runtime .status").text == "pending"
    assert browser.find_element("css selector", ".live-note").is_displayed()

    make_phase_result(run, "runtime", 0.5, duration_seconds=2.0)
    wait_until(
        browser, lambda d: d.find_element("css selector", "#phase-runtime .score").text == "50.0"
    )
    assert browser.find_element("css selector", "#phase-runtime .status").text == "Ran"
    save_screenshot(browser, "run_live_progress")

    assert run.finish(0.225, {"jar_sha256": "58c6df"})
    # Once finished, the script reloads the page so the server renders the full drill-down.
    wait_until(browser, lambda d: not d.find_elements("css selector", ".live-note"))
    assert browser.find_element("css selector", "#run-status .status-text").text == "Finished"
    assert browser.find_element("id", "overall-score").text == "22.5"
