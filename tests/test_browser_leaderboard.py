"""The leaderboard in a real headless Chromium: published order, sorting and filters."""

import pytest
from selenium.webdriver.support.ui import Select

from leaderboard.management.commands.load_published import load_published
from tests.browser import browser_fixture, save_screenshot, wait_for, wait_until  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def first_row(driver) -> tuple[str, str]:
    row = driver.find_element("css selector", "#leaderboard tbody tr")
    model = row.find_element("css selector", "td.model a").text
    # The cell's first line is the overall; its 95% interval is printed under it.
    overall = row.find_element("css selector", "td.overall").text.splitlines()[0]
    return model, overall


def shown_models(driver) -> list[str]:
    return [e.text for e in driver.find_elements("css selector", "#leaderboard td.model a")]


def test_the_leaderboard_opens_with_gemini_first_and_sorts_and_filters(browser, live_server):
    load_published()
    browser.get(live_server.url + "/")
    wait_for(browser, "#leaderboard tbody tr")
    assert first_row(browser) == ("Gemini 3.1 Pro", "86.6")
    assert len(shown_models(browser)) == 11
    # plotly.js from our static files drew the phase chart.
    wait_for(browser, "#phase-chart .main-svg")
    wait_for(browser, "#funnel-chart .main-svg")
    browser.set_window_size(1600, 2000)  # the whole page, charts included, in the artifact
    save_screenshot(browser, "leaderboard")

    browser.find_element("css selector", 'th[data-key="name"] a').click()
    wait_until(browser, lambda d: "sort=name" in d.current_url)
    names = shown_models(browser)
    assert names == sorted(names, key=str.lower)
    browser.find_element("css selector", 'th[data-key="name"] a').click()
    wait_until(browser, lambda d: "sort=-name" in d.current_url)
    assert shown_models(browser) == names[::-1]

    Select(browser.find_element("id", "id_org")).select_by_value("Anthropic")
    Select(browser.find_element("id", "id_kind")).select_by_value("llm")
    browser.find_element("css selector", ".board-filters button[type=submit]").click()
    wait_until(browser, lambda d: "org=Anthropic" in d.current_url)
    assert "kind=llm" in browser.current_url and "sort=-name" in browser.current_url
    assert shown_models(browser) == ["Claude Sonnet 4.6", "Claude Opus 4.7"]
    save_screenshot(browser, "leaderboard-filtered")

    # The filtered, sorted state is a shareable URL: a fresh load shows the same rows.
    browser.get(browser.current_url)
    assert shown_models(browser) == ["Claude Sonnet 4.6", "Claude Opus 4.7"]
