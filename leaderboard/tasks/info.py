"""What the task page shows about a task's contract, description and trace data.

The contract file follows the schema `evaluation.inputs.contracts` reads (docs/ARCHITECTURE.md,
"Interfaces"); it is validated with `evaluation.inputs.contracts.load_contract` and shown from
the YAML either way, so a task page never breaks on a contract that is still being written.
"""

import functools
from pathlib import Path
from typing import Any

import markdown
import nh3
import yaml
from django.conf import settings
from django.utils.safestring import SafeString, mark_safe

from evaluation.surface import load_contract
from leaderboard.models import Task

# What Markdown (with the tables and fenced_code extensions) makes of a task description; any other
# element is unwrapped to its text. No class, id or event attribute survives, and a style only
# keeps the tables extension's column alignment.
DESCRIPTION_TAGS = {
    *("h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote"),
    *("strong", "em", "code", "pre", "ul", "ol", "li", "a", "img"),
    *("table", "thead", "tbody", "tr", "th", "td"),
}
DESCRIPTION_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    "th": {"style"},
    "td": {"style"},
}
DESCRIPTION_STYLE_PROPERTIES = {"text-align"}
# Relative links (/tasks/..., #section) pass; an absolute one needs one of these schemes, so
# javascript:, data: and vbscript: URLs are dropped.
DESCRIPTION_URL_SCHEMES = {"http", "https", "mailto"}


def sanitise_html(html: str) -> str:
    """Keep only the allow-listed elements, attributes and link schemes of `html`."""
    return nh3.clean(
        html,
        tags=DESCRIPTION_TAGS,
        attributes=DESCRIPTION_ATTRIBUTES,
        filter_style_properties=DESCRIPTION_STYLE_PROPERTIES,
        url_schemes=DESCRIPTION_URL_SCHEMES,
    )


def markdown_to_html(text: str) -> str:
    """Markdown to HTML, unsanitised. Raw HTML in the Markdown is escaped, not rendered: a `<` in
    a description is text (a type such as Seq<u32> stays visible instead of becoming an unknown
    tag that the sanitiser would drop)."""
    md = markdown.Markdown(extensions=["tables", "fenced_code"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return md.convert(text or "")


def render_markdown(text: str) -> SafeString:
    """A task description as HTML for a page: Markdown, then nh3's allow-list."""
    return mark_safe(sanitise_html(markdown_to_html(text)))  # noqa: S308 - sanitised by nh3


def _validate(slug: str) -> str:
    """'' when the contract validates, else the error."""
    try:
        load_contract(slug, root=Path(settings.TASKS_DATA_DIR))
    except Exception as error:  # any failure is shown on the page, not a 500
        return str(error)
    return ""


def _as_list(entries: dict[str, Any] | list[Any] | None) -> list[dict[str, Any]]:
    if isinstance(entries, dict):
        return [{"name": name, **(value or {})} for name, value in entries.items()]
    return [e for e in entries or [] if isinstance(e, dict)]


def contract_info(slug: str) -> dict[str, Any]:
    """The contract's parts for display; `available` False when there is no task.yaml. Read
    once per process and version of the files (parsing and validating the YAML cost ~70 ms of
    every task page): an edited contract or description is seen at the next request."""
    folder = Path(settings.TASKS_DATA_DIR) / slug
    stamp = tuple(_file_stamp(folder / name) for name in ("task.yaml", "description.md"))
    return _contract_info(str(folder), slug, stamp)


def _file_stamp(path: Path) -> tuple[int, int] | None:
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_mtime_ns, found.st_size


@functools.lru_cache(maxsize=64)
def _contract_info(folder_text: str, slug: str, stamp: tuple[Any, ...]) -> dict[str, Any]:
    # Callers share the returned dict: the page only reads it.
    folder = Path(folder_text)
    description_path = folder / "description.md"
    description = description_path.read_text() if description_path.is_file() else ""
    contract_path = folder / "task.yaml"
    if not contract_path.is_file():
        return {"available": False, "description_html": render_markdown(description)}
    try:
        raw = yaml.safe_load(contract_path.read_text()) or {}
    except yaml.YAMLError as error:
        return {"available": False, "error": f"{contract_path.name}: {error}"}
    return {
        "available": True,
        "error": _validate(slug),
        "description_html": render_markdown(description),
        "module": raw.get("module", ""),
        "constants": raw.get("constants") or {},
        "schema": _as_list(raw.get("schema")),
        "actions": _as_list(raw.get("actions")),
        "invariants": _as_list(raw.get("invariants")),
        "excluded_invariants": _as_list(raw.get("excluded_invariants")),
        "deadlock": raw.get("deadlock", ""),
        "has_traces": bool(raw.get("traces")),
        "trace_source": (raw.get("traces") or {}).get("source", "data"),
        "no_traces_reason": raw.get("no_traces_reason", ""),
    }


def trace_status(task: Task) -> dict[str, Any]:
    """The newest imported trace corpus with its per-action window counts, or None."""
    corpus = task.corpora.order_by("-imported_at").first()
    if corpus is None:
        return {"corpus": None, "counts": []}
    return {"corpus": corpus, "counts": sorted(corpus.counts_by_action.items())}
