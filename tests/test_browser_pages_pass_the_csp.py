"""Every kind of page, plotly charts included, loads in Chromium under the site's
Content-Security-Policy without a single violation (and the charts are drawn)."""

import base64
import hashlib
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from leaderboard.management.commands.load_published import load_published
from leaderboard.models import Run
from tests.base import make_action_result, make_model, make_run, make_task
from tests.browser import browser_fixture, wait_for  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Installed by DevTools before any page script, outside the page's CSP: records each violation.
RECORDER = (
    "window.__csp = [];"
    "document.addEventListener('securitypolicyviolation', function (e) {"
    "  window.__csp.push(e.violatedDirective + ' blocked ' + e.blockedURI + ' at ' +"
    "                    e.sourceFile + ':' + e.lineNumber);"
    "});"
)


def violations(browser, url: str, ready: str) -> list[str]:
    browser.get(url)
    wait_for(browser, ready)
    return browser.execute_script("return window.__csp;")


def test_the_pages_load_without_csp_violations(browser, live_server):
    load_published()
    two = list(Run.objects.filter(task__slug="spin").order_by("pk")[:2])
    conformance = two[0].phase_results.filter(phase="conformance").first()
    if conformance is None:
        task, model = make_task("csp-task"), make_model("csp-model")
        run = make_run(model, task, {"syntax": 1, "runtime": 1, "conformance": 0.5, "invariant": 1})
        conformance = run.phase_results.get(phase="conformance")
    make_action_result(conformance, "AcquireLock", 1, 2)
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
    pages = {
        reverse("leaderboard"): "#phase-chart .main-svg",
        reverse("compare")
        + f"?a={two[0].model.slug}&b={two[1].model.slug}": "#compare-chart .main-svg",
        reverse("compare") + f"?run_a={two[0].pk}&run_b={two[1].pk}": "#compare-chart .main-svg",
        reverse("run_detail", args=[conformance.run_id]): "main",
        reverse("task_detail", args=["spin"]): "main",
        reverse("model_detail", args=[two[0].model.slug]): "main",
        reverse("submit"): "main",
        reverse("login"): "form",
        reverse("admin:login"): "form",
        reverse("methodology"): "main",
    }
    found = {}
    for path, ready in pages.items():
        response = browser.execute_script("return 1")  # the session is alive
        assert response == 1
        seen = violations(browser, live_server.url + path, ready)
        if seen:
            found[path] = seen
    assert found == {}


def plotly_inline_styles() -> list[str]:
    """The texts of the <style> elements plotly.min.js creates: "" for the ones it fills through
    the CSSOM, the literal for those it fills with `e.textContent='...'`."""
    source = (Path(settings.STATICFILES_DIRS[1][1]) / "plotly.min.js").read_text()
    texts = []
    for found in re.finditer(r'createElement\("style"\)', source):
        after = source[found.end() : found.end() + 400]
        literal = re.search(r"textContent='((?:[^'\\]|\\.)*)'", source[found.end() :])
        if 'createTextNode("")' in after:
            texts.append("")
        elif literal and literal.start() < 400:
            assert "\\" not in literal.group(1), "decode the JS escapes before hashing"
            texts.append(literal.group(1))
        else:
            raise AssertionError(f"a <style> plotly fills some other way: {after[:120]}")
    return texts


def test_the_policy_allows_exactly_the_inline_styles_of_the_installed_plotly():
    wanted = {
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
        for text in plotly_inline_styles()
    }
    assert wanted == set(settings.PLOTLY_STYLE_HASHES)


def test_the_policy_is_sent_with_every_page(client):
    response = client.get(reverse("methodology"))
    policy = response["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "'unsafe-eval'" not in policy
    assert "frame-ancestors 'none'" in policy
