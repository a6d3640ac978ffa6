"""Synchronous upload lint: the checks a submitter should hear about before anything is queued.

Each check returns one specific message (what is wrong and what is expected). The site's part is
the form-level checks (task, size, encoding, adapter); the spec's own checks are the scorer's
(`evaluation.pipeline.lint`), so lint and scoring refuse the same texts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from evaluation import pipeline
from evaluation.contracts import ContractError, load_contract, parse_adapter


@dataclass
class LintResult:
    spec_text: str = ""
    errors: dict[str, list[str]] = field(default_factory=dict)

    def add(self, field_name: str, message: str) -> None:
        self.errors.setdefault(field_name, []).append(message)

    @property
    def ok(self) -> bool:
        return not self.errors


def lint_upload(spec: bytes | str, task, adapter_text: str = "", cfg_text: str = "") -> LintResult:
    """Lint a spec (and optional adapter and TLC cfg) for `task`; errors are keyed "task",
    "spec", "adapter", "cfg"."""
    result = LintResult()
    try:
        contract = load_contract(task.slug, settings.TASKS_DATA_DIR)
    except ContractError:
        result.add(
            "task", f"Task {task.slug!r} has no scoring contract yet, so it takes no uploads."
        )
        return result
    text, message = decode_spec(spec)
    result.spec_text = text
    message = message or pipeline.lint(text, contract)
    if message:
        result.add("spec", message)
    if adapter_text.strip():
        try:
            adapter = parse_adapter(adapter_text, contract)
        except ContractError as error:
            result.add("adapter", f"The adapter is not valid: {error}")
        else:
            for problem in pipeline.adapter_problems(adapter, text) if text else []:
                result.add("adapter", f"The adapter is not valid: {problem}")
    problem = pipeline.cfg_problem(cfg_text)
    if problem:
        result.add("cfg", f"The cfg cannot be read: {problem}")
    return result


def decode_spec(spec: bytes | str) -> tuple[str, str]:
    """(text, error message or "") after the size and encoding checks."""
    raw = spec.encode() if isinstance(spec, str) else spec
    limit = settings.UPLOAD_MAX_BYTES
    if len(raw) > limit:
        return "", size_message(len(raw), limit)
    if not raw.strip():
        return "", "The spec is empty."
    try:
        return raw.decode("utf-8"), ""
    except UnicodeDecodeError as error:
        return "", (
            f"The spec is not UTF-8 text (byte {error.start} is 0x{raw[error.start]:02x}); "
            "save it as UTF-8 and upload it again."
        )


def size_message(size: int, limit: int) -> str:
    """The too-large message with the real size; "larger than" when both would print alike."""
    shown, allowed = _size(size), _size(limit)
    if shown == allowed:
        return f"The spec is larger than the limit of {allowed}."
    return f"The spec is {shown}; the limit is {allowed}."


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MiB"
    return f"{n / 1024:.0f} KiB" if n >= 1024 else f"{n} bytes"
