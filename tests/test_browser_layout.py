"""Every page at 1280 px and at 800 px in a real headless Chromium: no sideways scrolling, and a
screenshot of each in test-artifacts/ (layout-<page>-<width>.png)."""

import pytest

from leaderboard.management.commands.load_published import load_published
from leaderboard.models import ModelUnderTest, Run, Task
from tests.base import (
    make_action_result,
    make_invariant_result,
    make_model,
    make_run,
    make_window_result,
)
from tests.browser import ARTIFACTS, start_chromium, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHASES = {"syntax": 1.0, "runtime": 1.0, "conformance": 0.5, "invariant": 0.5}
WIDTHS = (1280, 800)


def verified_pair():
    """Two verified spin runs with per-action data, a split window and a counterexample."""
    spin = Task.objects.get(slug="spin")
    runs = []
    for name, accepted in (("Archive Claude", 152), ("Archive GPT-5", 96)):
        run = make_run(make_model(name.lower().replace(" ", "-"), name=name), spin, PHASES)
        conformance = run.phase_results.get(phase="conformance")
        make_action_result(conformance, "AcquireLock", accepted, 152)
        make_action_result(conformance, "ReleaseLock", 40, 40)
        verdict = "pass" if accepted == 152 else "fail"
        make_window_result(conformance, "AcquireLock", verdict, window_id="w17", detail={
            "closest": [{"successor": {"lockState": "unlocked", "pc": {"0": "idle", "1": "idle"}},
                         "differences": [{"variable": "lockState", "trace": "locked",
                                          "spec": "unlocked"}]}]})  # fmt: skip
        invariant = run.phase_results.get(phase="invariant")
        make_invariant_result(invariant, "MutualExclusion", "violated" if verdict == "fail" else
                              "holds", counterexample=[
            {"step": 1, "action": "Init", "vars": {"pc": '(0 :> "idle" @@ 1 :> "idle")'}},
            {"step": 2, "action": "AcquireLock", "vars": {"pc": '(0 :> "cs" @@ 1 :> "cs")'}},
        ])  # fmt: skip
        runs.append(run)
    return runs


def pages(a: Run, b: Run) -> dict[str, str]:
    window = b.phase_results.get(phase="conformance").window_results.get()
    other = a.phase_results.get(phase="conformance").window_results.get()
    reported = Run.objects.filter(provenance="reported", task__slug="mutex").first()
    gemini = ModelUnderTest.objects.get(name="Gemini 3.1 Pro")
    return {
        "leaderboard": "/",
        "model": f"/models/{gemini.slug}/",
        "run-reported": f"/runs/{reported.pk}/",
        "run-verified": f"/runs/{b.pk}/",
        "window-both-verdicts": f"/runs/{b.pk}/windows/{window.pk}/?vs={other.pk}",
        "compare-models": f"/compare/?a={a.model.slug}&b={b.model.slug}",
        "compare-published": f"/compare/?a={gemini.slug}&b=claude-opus-4-7",
        "tasks": "/tasks/",
        "task": "/tasks/spin/",
        "methodology": "/methodology/",
        "submit": "/submit/",
    }


def page_overflow(driver) -> int:
    """How many pixels the page is wider than the window (0 = no sideways scrolling)."""
    return driver.execute_script(
        "return Math.max(0, document.documentElement.scrollWidth - window.innerWidth);"
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_the_width_without_sideways_scrolling(live_server, tmp_path, width):
    load_published()
    a, b = verified_pair()
    driver = start_chromium(str(tmp_path / "profile"), width=width, height=900)
    try:
        ARTIFACTS.mkdir(exist_ok=True)
        for name, url in pages(a, b).items():
            driver.set_window_size(width, 900)
            driver.get(live_server.url + url)
            wait_for(driver, "main")
            if name in ("leaderboard", "compare-models"):
                wait_for(driver, ".main-svg")
            assert page_overflow(driver) == 0, f"{name} scrolls sideways at {width} px"
            if name == "leaderboard":
                # All eleven task columns are visible: the table needs no scrolling of its own.
                box = driver.find_element("css selector", "#leaderboard").find_element(
                    "xpath", ".."
                )
                assert driver.execute_script(
                    "return arguments[0].scrollWidth <= arguments[0].clientWidth;", box
                ), "the leaderboard table scrolls sideways"
            height = driver.execute_script("return document.documentElement.scrollHeight;")
            driver.set_window_size(width, min(max(height, 900), 6000))
            driver.save_screenshot(str(ARTIFACTS / f"layout-{name}-{width}.png"))
    finally:
        driver.quit()
