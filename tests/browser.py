"""Headless Chromium for browser tests (Debian's chromium + chromium-driver).

Use the `browser` fixture (import it into the test module) with pytest-django's `live_server`,
and `save_screenshot(driver, "name")` to keep a picture in test-artifacts/ for the CI logs:

    from tests.browser import browser_fixture, save_screenshot  # noqa: F401  (provides `browser`)

    @pytest.mark.browser
    def test_it(browser, live_server): ...
"""

import shutil
import tempfile
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",  # we run as root in CI containers, where the sandbox cannot start
    "--disable-gpu",
    "--disable-dev-shm-usage",  # small /dev/shm in containers crashes tabs otherwise
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _binary(*names: str) -> str | None:
    return next((found for name in names if (found := shutil.which(name))), None)


def start_chromium(profile_dir: str, width: int = 1600, height: int = 1100) -> webdriver.Chrome:
    chromium = _binary("chromium", "chromium-browser", "google-chrome")
    driver_path = _binary("chromedriver")
    if not chromium or not driver_path:
        pytest.skip("chromium and chromedriver are needed (Debian: chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [
        *CHROMIUM_FLAGS,
        f"--user-data-dir={profile_dir}",
        f"--window-size={width},{height}",
    ]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(30)
    return driver


@pytest.fixture(name="browser")
def browser_fixture():
    """A fresh headless Chromium with its own throwaway profile, quit after the test."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        driver = start_chromium(profile)
        try:
            yield driver
        finally:
            driver.quit()


def wait_for(driver, css: str, timeout: float = 15):
    """The first element matching `css` once it is visible."""
    return WebDriverWait(driver, timeout).until(
        expected_conditions.visibility_of_element_located(("css selector", css))
    )


def wait_until(driver, condition, timeout: float = 15):
    return WebDriverWait(driver, timeout).until(lambda d: condition(d))


def save_screenshot(driver, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path
