"""What the task page shows about a task's contract, description and trace data.

The contract file follows the schema pinned in docs/ARCHITECTURE.md; it is validated with
`evaluation.inputs.contracts.load_contract` and shown from the YAML either way, so a task page never
breaks on a contract that is still being written.
"""

from pathlib import Path

import markdown
import yaml
from django.conf import settings
from django.utils.safestring import mark_safe
from markdown.treeprocessors import Treeprocessor

from evaluation.surface import load_contract

SAFE_LINK_PREFIXES = ("http://", "https://", "/", "#", "mailto:")


class _DropUnsafeLinks(Treeprocessor):
    def run(self, root):
        for element in root.iter():
            for attribute in ("href", "src"):
                value = element.get(attribute)
                if value and not value.strip().lower().startswith(SAFE_LINK_PREFIXES):
                    del element.attrib[attribute]


def render_markdown(text: str) -> str:
    """Markdown to HTML with raw HTML escaped and only web/relative links kept."""
    md = markdown.Markdown(extensions=["tables", "fenced_code"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    md.treeprocessors.register(_DropUnsafeLinks(md), "drop_unsafe_links", 0)
    return mark_safe(md.convert(text or ""))  # noqa: S308 - raw HTML is escaped above


def _validate(slug: str) -> str:
    """'' when the contract validates, else the error."""
    try:
        load_contract(slug, root=Path(settings.TASKS_DATA_DIR))
    except Exception as error:  # any failure is shown on the page, not a 500
        return str(error)
    return ""


def _as_list(entries) -> list[dict]:
    if isinstance(entries, dict):
        return [{"name": name, **(value or {})} for name, value in entries.items()]
    return [e for e in entries or [] if isinstance(e, dict)]


def contract_info(slug: str) -> dict:
    """The contract's parts for display; `available` False when there is no task.yaml."""
    folder = Path(settings.TASKS_DATA_DIR) / slug
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


def trace_status(task) -> dict:
    """The newest imported trace corpus with its per-action window counts, or None."""
    corpus = task.corpora.order_by("-imported_at").first()
    if corpus is None:
        return {"corpus": None, "counts": []}
    return {"corpus": corpus, "counts": sorted(corpus.counts_by_action.items())}
