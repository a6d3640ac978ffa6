"""Task descriptions are Markdown rendered to HTML and then sanitised by nh3's allow-list: what a
description needs survives, anything that could run script does not."""

from html.parser import HTMLParser
from pathlib import Path

import pytest

from leaderboard.tasks.info import markdown_to_html, render_markdown, sanitise_html

ROOT = Path(__file__).resolve().parent.parent


class _Elements(HTMLParser):
    """Every start tag of a fragment with its attributes, as a browser's parser would see them."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return parser.found


def assert_harmless(html: str) -> None:
    for tag, attrs in elements(html):
        assert tag not in {"script", "iframe", "object", "embed", "style"}, html
        for name, value in attrs.items():
            assert not name.startswith("on"), html
            assert not (value or "").strip().lower().startswith(("javascript:", "data:")), html


HOSTILE_MARKDOWN = """\
# Title

<script>alert(1)</script>

<img src="x" onerror="alert(2)">

[click](javascript:alert(3)) and [spaced]( JAVASCRIPT:alert(4) ) and ![pic](javascript:alert(5))
"""


def test_script_event_handlers_and_javascript_links_in_markdown_come_out_harmless():
    html = render_markdown(HOSTILE_MARKDOWN)
    assert_harmless(html)
    # Raw HTML is shown as text, not dropped: the author sees what they wrote.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert [tag for tag, _ in elements(html)].count("a") == 2
    assert all("href" not in attrs for tag, attrs in elements(html) if tag in {"a", "img"})


def test_the_sanitiser_itself_removes_scripts_handlers_and_script_urls():
    # What Markdown would pass through if raw HTML were ever let in: nh3 is the second wall.
    html = sanitise_html(
        '<p onclick="alert(1)">text</p><script>alert(2)</script>'
        '<img src="x.png" onerror="alert(3)"><a href="javascript:alert(4)">a</a>'
        '<a href="data:text/html,hi">b</a><iframe src="https://evil.example"></iframe>'
        '<td style="text-align: left; background: url(javascript:alert(5))">c</td>'
    )
    assert_harmless(html)
    assert "alert(2)" not in html  # a script's content goes with it
    assert "<p>text</p>" in html and '<img src="x.png">' in html
    assert "background" not in html


def test_a_normal_description_keeps_headings_code_tables_and_links():
    text = """\
# Spin lock

## What to model

Some **bold**, *emphasis* and `Lock(p)` code, and a [link](https://example.org/spec "Spec"),
a [relative](/tasks/spin/) one and [mail](mailto:team@example.org).

1. first
2. second

Then:

- item

| Action | Count |
|:-------|------:|
| `Acquire` | 3 |

```
Next == Acquire \\/ Release
```

> quoted
"""
    html = render_markdown(text)
    found = elements(html)
    tags = {tag for tag, _ in found}
    assert {"h1", "h2", "strong", "em", "code", "pre", "ol", "ul", "li", "blockquote"} <= tags
    assert {"table", "thead", "tbody", "tr", "th", "td", "a"} <= tags
    links = [attrs for tag, attrs in found if tag == "a"]
    assert [link["href"] for link in links] == [
        "https://example.org/spec",
        "/tasks/spin/",
        "mailto:team@example.org",
    ]
    assert links[0]["title"] == "Spec"
    styles = [attrs.get("style") or "" for tag, attrs in found if tag in {"th", "td"}]
    alignments = [style.replace(" ", "").rstrip(";") for style in styles]
    assert alignments == ["text-align:left", "text-align:right"] * 2
    assert "Next == Acquire \\/ Release" in html


@pytest.mark.parametrize(
    "path", sorted(ROOT.glob("tasks_data/*/description.md")), ids=lambda p: p.parent.name
)
def test_every_shipped_description_loses_nothing_to_the_sanitiser(path):
    text = path.read_text()
    assert render_markdown(text) == markdown_to_html(text)
