"""Synchronous upload lint: the checks a submitter should hear about before anything is queued.

Each check returns one specific message (what is wrong and what is expected). The checks run
in order and stop at the first failing one for the spec, because a later check (SANY) would
only repeat the earlier problem in its own, less readable words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.conf import settings

from evaluation.contracts import ContractError, load_contract, parse_adapter
from evaluation.tla.sandbox import TLCSET, Limits, precheck_spec, run_sany
from leaderboard.drilldown import lines_in

MODULE_HEADER = re.compile(r"^\s*-{4,}\s*MODULE\s+([A-Za-z0-9_]+)\s*-{4,}", re.MULTILINE)
# Constructs whose effect escapes the checker: TLCSet("exit", TRUE) forges a clean TLC finish.
# The pattern is the sandbox's own, so lint and scorer refuse the same texts.
FORBIDDEN = {"TLCSet": (TLCSET, "it can end TLC early and forge a passing result")}
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_COMMENT = re.compile(r"\(\*.*?\*\)|\\\*[^\n]*", re.DOTALL)
SANY_LIMITS = Limits(wall_seconds=30, cpu_seconds=60, heap_mb=256, scratch_mb=32)


@dataclass
class LintResult:
    spec_text: str = ""
    errors: dict[str, list[str]] = field(default_factory=dict)

    def add(self, field_name: str, message: str) -> None:
        self.errors.setdefault(field_name, []).append(message)

    @property
    def ok(self) -> bool:
        return not self.errors


def lint_upload(spec: bytes | str, task, adapter_text: str = "") -> LintResult:
    """Lint a spec (and optional adapter) for `task`; errors are keyed "task", "spec", "adapter"."""
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
    message = message or check_spec_text(text, contract)
    if message:
        result.add("spec", message)
    if adapter_text.strip():
        try:
            parse_adapter(adapter_text, contract)
        except ContractError as error:
            result.add("adapter", f"The adapter is not valid: {error}")
    return result


def decode_spec(spec: bytes | str) -> tuple[str, str]:
    """(text, error message or "") after the size and encoding checks."""
    raw = spec.encode() if isinstance(spec, str) else spec
    limit = settings.UPLOAD_MAX_BYTES
    if len(raw) > limit:
        return "", f"The spec is {_kib(len(raw))}; the limit is {_kib(limit)}."
    if not raw.strip():
        return "", "The spec is empty."
    try:
        return raw.decode("utf-8"), ""
    except UnicodeDecodeError as error:
        return "", (
            f"The spec is not UTF-8 text (byte {error.start} is 0x{raw[error.start]:02x}); "
            "save it as UTF-8 and upload it again."
        )


def check_spec_text(text: str, contract) -> str:
    """The first problem found in a decoded spec, or ""."""
    code = strip_comments(text)
    return (
        check_module(code, contract.module)
        or check_forbidden(code)
        or check_extends(code, contract.extends_allowed)
        or check_precheck(text, contract)
        or check_sany(text, contract.module)
    )


def strip_comments(text: str) -> str:
    """The spec with strings and comments blanked, keeping line numbers intact."""
    text = _STRING.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', text)
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def check_module(code: str, expected: str) -> str:
    names = MODULE_HEADER.findall(code)
    if not names:
        return f"No module header found: the spec must start with ---- MODULE {expected} ----."
    if len(names) > 1:
        return f"The spec declares {len(names)} modules ({', '.join(names)}); submit exactly one."
    if names[0] != expected:
        return (
            f"The module is named {names[0]!r}, but this task requires MODULE {expected} "
            f"(rename the module header to ---- MODULE {expected} ----)."
        )
    return ""


def check_forbidden(code: str) -> str:
    for name, (pattern, why) in FORBIDDEN.items():
        match = pattern.search(code)
        if match:
            line = code.count("\n", 0, match.start()) + 1
            return f"Line {line}: {name} is not allowed in an official submission ({why})."
    return ""


def check_extends(code: str, allowed) -> str:
    for line, module in extended_modules(code):
        if module not in allowed:
            return (
                f"Line {line}: EXTENDS {module} is not allowed; this task allows "
                f"{', '.join(sorted(allowed))}."
            )
    return ""


def check_precheck(text: str, contract) -> str:
    """The scorer's own refusal list, so lint never passes what scoring would refuse."""
    reasons = precheck_spec(text, contract.extends_allowed, contract.module)
    return f"The spec cannot be scored: {'; '.join(reasons)}." if reasons else ""


def extended_modules(code: str) -> list[tuple[int, str]]:
    """(line, module) for every module named by EXTENDS or INSTANCE."""
    found = []
    for match in re.finditer(r"\bEXTENDS\b((?:\s*[A-Za-z0-9_]+\s*,)*\s*[A-Za-z0-9_]+)", code):
        for name in re.finditer(r"[A-Za-z0-9_]+", match.group(1)):
            found.append((code.count("\n", 0, match.start(1) + name.start()) + 1, name.group(0)))
    for match in re.finditer(r"\bINSTANCE\s+([A-Za-z0-9_]+)", code):
        found.append((code.count("\n", 0, match.start(1)) + 1, match.group(1)))
    return found


def check_sany(text: str, module: str) -> str:
    run = run_sany({module: text}, module, SANY_LIMITS)
    if run.status == "ok":
        return ""
    if run.status == "timeout":
        return f"SANY did not finish parsing within {SANY_LIMITS.wall_seconds:.0f} s."
    return "SANY rejected the module: " + sany_summary(run.output)


def sany_summary(output: str) -> str:
    """What SANY says is wrong, with the line it points at, without its parser stack."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    encountered = [line for line in lines if line.startswith("Encountered")]
    if encountered:
        # A parse error: SANY follows it with the grammar rules it was inside; only noise here.
        return encountered[0][:600]
    keep = [
        line
        for line in lines
        if (lines_in(line) or "Unknown" in line or "rror" in line)
        and not line.startswith(("***", "Parsing", "Semantic processing", "Fatal errors"))
    ]
    return " ".join(dict.fromkeys(keep))[:600] or "parse failed (no message)."


def _kib(n: int) -> str:
    return f"{n / 1024:.0f} KiB" if n >= 1024 else f"{n} bytes"
