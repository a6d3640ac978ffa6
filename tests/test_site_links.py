"""Every internal link reachable from the home page answers 200, and every #fragment it points
to exists on its target page.

The world is the one a visitor sees: the published fixture (11 models × 11 tasks, reported) plus
a finished verified run with a syntax table, a failing window and an invariant counterexample,
and a run still in the queue. Pages whose only difference is the query string (sort orders,
run pairs on /compare/) are capped per path so the crawl stays quick; every distinct path is
visited.
"""

from collections import deque
from html.parser import HTMLParser
from urllib.parse import parse_qs, urldefrag, urljoin, urlsplit

import pytest
from django.core.management import call_command

from leaderboard.models import ModelUnderTest, Run, Task, WindowResult
from tests.base import (
    make_action_result,
    make_invariant_result,
    make_phase_result,
    make_run,
    make_window_result,
)

QUERY_VARIANTS_PER_PATH = 8
NOT_CRAWLED = ("/admin/", "/django-rq/", "/static/")
SPEC = """---- MODULE spin ----
VARIABLES lockState, pc
Init == lockState = "unlocked" /\\ pc = [t \\in {"0"} |-> "idle"]
AcquireLock(t) == lockState' = "locked" /\\ UNCHANGED pc
ReleaseLock(t) == lockState' = "unlocked" /\\ UNCHANGED pc
====
"""


class _Links(HTMLParser):
    """hrefs of <a>, actions of GET forms, and every id on the page."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag == "form" and (attrs.get("method") or "get").lower() == "get":
            self.links.append(attrs.get("action") or "")


def _parse(html: str) -> _Links:
    parser = _Links()
    parser.feed(html)
    return parser


def _verified_run_with_windows() -> Run:
    model = ModelUnderTest.objects.get(slug="gemini-3-1-pro")
    run = make_run(model, Task.objects.get(slug="spin"), spec_text=SPEC)
    make_phase_result(
        run,
        "syntax",
        1.0,
        details={"definitions": [{"name": "Init", "line": 3, "ok": True}]},
    )
    runtime = make_phase_result(run, "runtime", 1.0)
    make_action_result(runtime, "AcquireLock", 1, 1, detail={"line": 4, "generated": 3})
    conformance = make_phase_result(run, "conformance", 0.5)
    make_action_result(conformance, "AcquireLock", 3, 3)
    make_action_result(conformance, "ReleaseLock", 1, 2)
    make_window_result(conformance, "ReleaseLock", window_id="w9", reason="no successor")
    make_window_result(conformance, "AcquireLock", verdict="pass", window_id="w1")
    invariants = make_phase_result(run, "invariant", 0.5)
    make_invariant_result(invariants, "NoDeadlock", verdict="holds")
    make_invariant_result(
        invariants,
        "MutualExclusion",
        verdict="violated",
        counterexample=[
            {"step": 1, "action": "Init", "vars": {"lockState": '"unlocked"'}},
            {"step": 2, "action": "AcquireLock", "vars": {"lockState": '"locked"'}},
        ],
    )
    assert run.claim()
    assert run.finish(0.6, {"jar_sha256": "58c6df"})
    return run


@pytest.fixture
def site(db, settings):
    settings.RQ_FORCE_INLINE = True
    call_command("load_published", verbosity=0)
    verified = _verified_run_with_windows()
    queued = make_run(verified.model, verified.task, spec_text=SPEC, status=Run.Status.QUEUED)
    return {"verified": verified, "queued": queued}


def _crawl(client):
    """Breadth-first from "/": {url: (status, content type)}, ids per HTML page, fragment
    links as (from page, target url, fragment), and the links that led off-site."""
    seen, pages, ids, fragments = {"/"}, {}, {}, []
    variants: dict[tuple, int] = {}
    queue = deque(["/"])
    while queue:
        url = queue.popleft()
        response = client.get(url)
        content_type = response.get("Content-Type", "")
        pages[url] = (response.status_code, content_type)
        if response.status_code != 200 or not content_type.startswith("text/html"):
            continue
        parsed = _parse(response.content.decode())
        ids[url] = parsed.ids
        for href in parsed.links:
            target, fragment = urldefrag(urljoin(url, href))
            parts = urlsplit(target)
            if parts.scheme not in ("", "http") or parts.netloc not in ("", "testserver"):
                continue
            target = parts.path + (f"?{parts.query}" if parts.query else "")
            if fragment:
                fragments.append((url, target, fragment))
            if target in seen or target.startswith(NOT_CRAWLED):
                continue
            if parts.query:
                # One budget per path and set of parameter names: ?a=&b= and ?run_a=&run_b= are
                # different link kinds on /compare/, sort orders of / are one kind.
                kind = (parts.path, tuple(sorted(parse_qs(parts.query, keep_blank_values=True))))
                if variants.get(kind, 0) >= QUERY_VARIANTS_PER_PATH:
                    continue
                variants[kind] = variants.get(kind, 0) + 1
            seen.add(target)
            queue.append(target)
    return pages, ids, fragments


def test_every_internal_link_and_fragment_from_the_home_page_resolves(client, site):
    pages, ids, fragments = _crawl(client)
    broken = {url: status for url, (status, _) in pages.items() if status != 200}
    assert broken == {}
    verified = site["verified"]
    window = WindowResult.objects.get(phase_result__run=verified, verdict="fail")
    # The crawl really reached the deep pages, not only the board.
    for expected in (
        "/methodology/",
        "/tasks/",
        "/tasks/zookeeper/",
        "/models/minimax-m2-7/",
        f"/runs/{verified.pk}/",
        f"/runs/{verified.pk}/windows/{window.pk}/",
        f"/runs/{verified.pk}.csv",
        f"/runs/{site['queued'].pk}/",
        "/submit/",
        "/compare/",
        "/leaderboard.csv",
    ):
        assert expected in pages, expected
    assert any(url.startswith("/compare/?a=") for url in pages)
    # An anonymous visitor is offered no "Resubmit" of another account's run
    # (docs/decisions/0030-first-hour-and-peers.md).
    assert f"/submit/?from={verified.pk}" not in pages
    assert any(url.startswith("/compare/?run_a=") and "run_b" in url for url in pages)
    assert len(pages) > 150

    # A fragment link (#L12, #action-ReleaseLock, /methodology/#phases) must land on an element.
    missing = sorted(
        {(page, f"{target}#{fragment}") for page, target, fragment in fragments
         if target in ids and fragment not in ids[target]}
    )  # fmt: skip
    assert missing == []
    assert len(fragments) > 50
