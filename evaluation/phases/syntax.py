"""P1 syntax: SANY on the whole module; partial credit per top-level definition.

P1 = 1 when SANY accepts the module (its output is read: SANY exits 0 on semantic errors).
Otherwise P1 = 0.5 x parsed / total definitions, where each top-level definition is checked in
an isolation module holding the spec's EXTENDS, CONSTANTS, VARIABLES, RECURSIVE declarations and
a `Name(params) == TRUE` stub for every earlier definition, with the definition itself at its
original line so SANY's line numbers are the spec's. Unknown names are errors (nothing is
stubbed that the spec did not define). All isolation modules go to one SANY call; SANY stops at
a fatal parse error, so the call is repeated for the modules after it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from evaluation.details import DefinitionRow, SyntaxActionDetail, SyntaxDetails
from evaluation.inputs.contracts import Contract
from evaluation.phases._common import allowed_modules, limits_for, raise_if_timed_out
from evaluation.results import ActionOutcome, PhaseOutcome
from evaluation.tla import sandbox
from evaluation.tla.parsed import ParsedSpec, spec_of
from evaluation.tla.sandbox import Limits
from evaluation.tla.splitter import Definition, Listing

_SEGMENT = re.compile(r"^\s*\*{6} SANY2 Version[^\n]*$", re.MULTILINE)
_PARSING = re.compile(r"^Parsing file .*?([A-Za-z0-9_]+)\.tla\s*$", re.MULTILINE)
_ERROR_START = re.compile(
    r"^(\*\*\*Parse Error\*\*\*|Semantic errors:|\*\*\* Errors:|Fatal errors|Could not parse"
    r"|Cannot find source file|.*Lexical error)",
    re.MULTILINE,
)
MESSAGE_CHARS = 1500
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_HEAD = re.compile(rf"{_NAME}(\s*\(\s*{_NAME}(\s*,\s*{_NAME})*\s*\))?")


@dataclass
class _Verdict:
    ok: bool
    message: str


def syntax_passed(outcome: PhaseOutcome) -> bool:
    """Gate for later phases (docs/BENCHMARK_RULES.md §1): only a module SANY accepts whole goes
    on."""
    return outcome.status == "ran" and outcome.score == 1.0


def check_syntax(spec: str | ParsedSpec, contract: Contract) -> PhaseOutcome:
    started = time.monotonic()
    parsed = spec_of(spec)
    listing = parsed.listing
    # The spec keeps its own module name (`1_mutex`); the contract's is only a fallback.
    module: str = listing.module or contract.module or "Spec"
    details: SyntaxDetails = {"module": module, "declared_module": listing.module}
    outcome = _check(parsed, module, contract, details, started)
    if parsed.reading.symbols:
        # Which Unicode symbols SANY was given in ASCII (the run page says so).
        details["unicode"] = parsed.reading.summary()
    return outcome


def _check(
    spec: ParsedSpec,
    module: str,
    contract: Contract,
    details: SyntaxDetails,
    started: float,
) -> PhaseOutcome:
    spec_text, listing = spec.text, spec.listing
    limits = limits_for(contract, "syntax")
    problems = _whole_module_problems(spec, module, contract)
    if not problems:
        whole = sandbox.run_sany({module: spec_text}, module, limits)
        details["sany_version"] = whole.version
        raise_if_timed_out("syntax", whole, limits.wall_seconds)
        if whole.status != "ok":
            problems.append(_error_text(whole.output) or whole.note)
    details["whole_module"] = {"ok": not problems, "messages": problems}
    definitions = listing.definitions
    if not problems:
        verdicts = {i: _Verdict(True, "") for i in range(len(definitions))}
        score = 1.0
    else:
        verdicts = _isolation_verdicts(listing, limits, contract)
        parsed = sum(v.ok for v in verdicts.values())
        score = 0.5 * parsed / len(definitions) if definitions else 0.0
    details["definitions"] = _rows(definitions, verdicts)
    details["parsed"] = sum(v.ok for v in verdicts.values())
    details["total"] = len(definitions)
    actions = [
        ActionOutcome(d.name, int(verdicts[i].ok), 1, _action_detail(d, verdicts[i]))
        for i, d in enumerate(definitions)
    ]
    return PhaseOutcome(
        "syntax",
        "ran",
        round(score, 6),
        details,
        actions=actions,
        duration_seconds=time.monotonic() - started,
    )


def _action_detail(definition: Definition, verdict: _Verdict) -> SyntaxActionDetail:
    return {
        "line": definition.start_line,
        "end_line": definition.end_line,
        "message": verdict.message,
    }


def _whole_module_problems(spec: ParsedSpec, module: str, contract: Contract) -> list[str]:
    listing = spec.listing
    problems = []
    if listing.module is None:
        problems.append("no `---- MODULE Name ----` header found")
    try:
        sandbox.validate_module_name(module)
    except sandbox.SandboxError as exc:
        problems.append(str(exc))
    problems.extend(sandbox.precheck_spec(spec, allowed_modules(contract), listing.module))
    return problems


def _error_text(output: str) -> str:
    match = _ERROR_START.search(output)
    if not match:
        return ""
    return output[match.start() : match.start() + MESSAGE_CHARS].strip()


def _rows(definitions: list[Definition], verdicts: dict[int, _Verdict]) -> list[DefinitionRow]:
    return [
        {
            "name": d.name,
            "line": d.start_line,
            "end_line": d.end_line,
            "verdict": "ok" if verdicts[i].ok else "error",
            "message": verdicts[i].message,
        }
        for i, d in enumerate(definitions)
    ]


# ----------------------------------------------------------------------------- isolation


def _one_line(text: str) -> str:
    return " ".join(sandbox.strip_comments(text).split())


def _stub(definition: Definition) -> str:
    if definition.kind == "module":
        return _one_line(definition.text)
    # A broken definition keeps its parameters when its head is intact, so that later
    # definitions using it are judged on their own text, not on the stub's arity.
    broken_head = definition.has_error and not _HEAD.fullmatch(definition.head)
    if definition.kind == "function" or broken_head:
        return f"{definition.name} == TRUE"
    return f"{definition.head} == TRUE"


def _prelude(listing: Listing, index: int, allowed: set[str]) -> str:
    parts = []
    for text in listing.declaration_texts:
        line = _one_line(text)
        if line.startswith("EXTENDS"):
            names = [n for n in listing.extends if n in allowed]
            line = "EXTENDS " + ", ".join(names) if names else ""
        if line:
            parts.append(line)
    target = listing.definitions[index]
    recursive = set(listing.recursive_names)
    stubbed = [
        d
        for j, d in enumerate(listing.definitions)
        if j != index and (j < index or d.name in recursive) and d.name != target.name
    ]
    parts.extend(_one_line(r) for r in listing.recursive)
    parts.extend(_stub(d) for d in stubbed)
    return " ".join(parts)


def isolation_module(listing: Listing, index: int, name: str, allowed: set[str]) -> str:
    """Module `name` checking definition `index` alone, at its original line."""
    target = listing.definitions[index]
    lines = [f"---- MODULE {name} ----", _prelude(listing, index, allowed)]
    lines.extend([""] * max(0, target.start_line - 1 - len(lines)))
    return "\n".join(lines) + "\n" + target.text + "\n====\n"


def _isolation_verdicts(
    listing: Listing, limits: Limits, contract: Contract
) -> dict[int, _Verdict]:
    allowed = allowed_modules(contract)
    names = {f"_D{i}": i for i in range(len(listing.definitions))}
    modules = {n: isolation_module(listing, i, n, allowed) for n, i in names.items()}
    # Likely parse failures last: each fatal parse error costs a new SANY call for the rest.
    pending = sorted(names, key=lambda n: (listing.definitions[names[n]].has_error, names[n]))
    verdicts: dict[int, _Verdict] = {}
    while pending:
        run = sandbox.run_sany(modules, pending[0], limits, roots=pending)
        # SANY cannot be bounded by work: a time limit it reaches is the machine's.
        raise_if_timed_out("syntax", run, limits.wall_seconds)
        seen = _segment_verdicts(run.output)
        for n in pending:
            if n in seen:
                verdicts[names[n]] = _rename(seen[n], n, listing.module or "")
        done = [n for n in pending if n in seen]
        if not done:  # nothing attributable: fail the first one rather than loop
            verdicts[names[pending[0]]] = _Verdict(False, _error_text(run.output) or run.note)
            done = [pending[0]]
        pending = [n for n in pending if n not in done]
    return verdicts


def _rename(verdict: _Verdict, iso: str, module: str) -> _Verdict:
    return _Verdict(verdict.ok, verdict.message.replace(f"module {iso}", f"module {module}"))


def _segment_verdicts(output: str) -> dict[str, _Verdict]:
    verdicts = {}
    for segment in _SEGMENT.split(output)[1:]:
        parsing = _PARSING.search(segment)
        if not parsing:
            continue
        message = _error_text(segment)
        verdicts[parsing.group(1)] = _Verdict(not message, message)
    return verdicts
