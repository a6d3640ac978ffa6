"""Synchronous upload lint: the checks a submitter should hear about before anything is queued.

Each check returns one specific message (what is wrong and what is expected). The site's part is
the form-level checks (task, size, encoding) and the cheap pre-scan (`evaluation.upload.prescan`:
NUL, surrogates, line length, nesting), all linear in the text. The parse, the adapter and SANY are
the scorer's (`evaluation.pipeline.lint`), run in a child interpreter with a wall timeout
(`surface.check_isolated`) and at most LINT_CONCURRENCY at once per host (`lint_slots`), so no
upload can hold the web process's interpreter or start unbounded JVMs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from evaluation import surface
from leaderboard.models import Task
from leaderboard.submit.lint_slots import lint_slot


@dataclass
class LintResult:
    spec_text: str = ""
    errors: dict[str, list[str]] = field(default_factory=dict)
    # The spec's one problem is that SANY rejects it: it may still be scored, if asked for.
    sany_rejected: bool = False

    def add(self, field_name: str, message: str) -> None:
        self.errors.setdefault(field_name, []).append(message)

    @property
    def ok(self) -> bool:
        return not self.errors


def lint_upload(
    spec: bytes | str, task: Task, adapter_text: str = "", cfg_text: str = ""
) -> LintResult:
    """Lint a spec (and optional adapter and TLC cfg) for `task`; errors are keyed "task",
    "spec", "adapter", "cfg".

    Raises leaderboard.shared.ratelimit.Limited when every check slot stays busy."""
    result = LintResult()
    try:
        surface.load_contract(task.slug, settings.TASKS_DATA_DIR)
    except surface.ContractError:
        result.add(
            "task", f"Task {task.slug!r} has no scoring contract yet, so it takes no uploads."
        )
        return result
    text, message = decode_spec(spec)
    result.spec_text = text
    message = message or surface.prescan_problem(text, "The spec")
    adapter_message = cfg_message = ""
    if adapter_text.strip():
        adapter_message = surface.prescan_problem(adapter_text, "The adapter")
    if cfg_text.strip():
        cfg_message = surface.prescan_problem(cfg_text, "The cfg")
    if not (message or adapter_message or cfg_message):
        with lint_slot():
            outcome = surface.check_isolated(
                text,
                adapter_text,
                task.slug,
                settings.TASKS_DATA_DIR,
                settings.LINT_TIMEOUT_SECONDS,
                cfg=cfg_text,
            )
        message, adapter_message, cfg_message = outcome.spec, outcome.adapter, outcome.cfg
        result.sany_rejected = outcome.spec_sany_rejected
    if message:
        result.add("spec", message)
    if adapter_message:
        result.add("adapter", adapter_message)
    if cfg_message:
        result.add("cfg", cfg_message)
    return result


def decode_spec(spec: bytes | str) -> tuple[str, str]:
    """(text, error message or "") after the size and encoding checks."""
    if isinstance(spec, str):
        # Text from JSON can hold lone surrogates, which no encoder (or database) accepts.
        problem = surface.unstorable(spec, "The spec")
        if problem:
            return "", problem
    raw = spec.encode() if isinstance(spec, str) else spec
    limit = settings.UPLOAD_MAX_BYTES
    if len(raw) > limit:
        return "", too_big("The spec", len(raw))
    if not raw.strip():
        return "", "The spec is empty."
    try:
        return raw.decode("utf-8"), ""
    except UnicodeDecodeError as error:
        return "", (
            f"The spec is not UTF-8 text (byte {error.start} is 0x{raw[error.start]:02x}); "
            "save it as UTF-8 and upload it again."
        )


def too_big(what: str, size: int, limit: int | None = None) -> str:
    limit = settings.UPLOAD_MAX_BYTES if limit is None else limit
    return f"{what} is {human_size(size)}; the limit is {human_size(limit)}."


def human_size(n: int) -> str:
    """Exact bytes, and KiB/MiB for reading: "262,145 bytes (256.0 KiB)"."""
    if n < 1024:
        return f"{n:,} bytes"
    unit, scale = ("MiB", 1024 * 1024) if n >= 1024 * 1024 else ("KiB", 1024)
    return f"{n:,} bytes ({n / scale:.1f} {unit})"
