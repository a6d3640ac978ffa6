"""The upload lint's spec checks: what a submitter should hear before anything is queued.

One scanner: the tree-sitter listing (`splitter.list_module`) for the module header, EXTENDS /
INSTANCE targets and forbidden identifiers with their lines, then the sandbox's own
`precheck_spec` (so lint never passes what scoring would refuse), then SANY. The checks stop at
the first problem, because a later check (SANY) would only repeat it in less readable words.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from evaluation.inputs.contracts import Adapter, Contract, identity_action
from evaluation.tla import unicode
from evaluation.tla.messages import lines_in
from evaluation.tla.sandbox.calls import run_sany
from evaluation.tla.sandbox.limits import Limits, ToolRun
from evaluation.tla.sandbox.precheck import precheck_spec
from evaluation.tla.spectext import split_call
from evaluation.tla.splitter import Listing, list_module
from evaluation.upload import prescan

# Constructs whose effect escapes the checker: TLCSet("exit", TRUE) forges a clean TLC finish.
FORBIDDEN = {"TLCSet": "it can end TLC early and forge a passing result"}
SANY_LIMITS = Limits(wall_seconds=30, cpu_seconds=60, heap_mb=256, scratch_mb=32)


def first_problem(
    text: str,
    contract: Contract,
    adapter: Adapter | None = None,
    *,
    names: bool = True,
    sany_limits: Limits = SANY_LIMITS,
) -> str:
    """The first problem found in a decoded spec, or "" (the cheap pre-scan comes first, so the
    parser never sees a text that would make it slow). Every check after the pre-scan reads the
    spec as the scorer does, its Unicode symbols spelled in ASCII (`read_spec`)."""
    return first_finding(text, contract, adapter, names=names, sany_limits=sany_limits).message


@dataclass(frozen=True)
class Finding:
    """The lint's first problem ("" when none) and whether it is SANY's rejection of a spec
    every other check passed: such a spec can still be scored (P1 partial, the later phases
    not reached), so a submitter may ask for that; any other problem stops the upload."""

    message: str = ""
    sany_rejected: bool = False


def first_finding(
    text: str,
    contract: Contract,
    adapter: Adapter | None = None,
    *,
    names: bool = True,
    sany_limits: Limits = SANY_LIMITS,
) -> Finding:
    text, problem = read_spec(text)
    if problem:
        return Finding(problem)
    listing = list_module(text)
    # The spec keeps its own module name (`1_mutex`): the scorer uses it in every phase.
    headers = listing.modules or written_headers(text)
    module = headers[0] if len(headers) == 1 else contract.module
    problem = (
        check_module(listing, contract.module, text)
        or check_forbidden(listing)
        or check_extends(listing, contract.extends_allowed)
        or check_not_empty(listing)
        or (names and check_contract_names(listing, contract, adapter))
        or check_precheck(text, contract, module)
    )
    if problem:
        return Finding(problem)
    run = run_sany({module: text}, module, sany_limits)
    return Finding(sany_problem(run, sany_limits), sany_rejected=run.status == "error")


def read_spec(text: str) -> tuple[str, str]:
    """(the text every later check and phase reads, the pre-scan's problem or "").

    The pre-scan sees the submitter's text and the text with its Unicode symbols spelled out
    (`⟨` nests like `<<`, `¬` chains like `~`, `⊆` is nine columns), before tree-sitter parses
    either, so the rewrite can neither slip a text past the pre-scan nor hand the parser one
    it would refuse."""
    problem = prescan.first_problem(text)
    if problem:
        return text, problem
    spelled = unicode.spell_out(text)
    if spelled == text:
        return text, ""
    what = "The spec (its Unicode symbols read as ASCII)"
    problem = prescan.first_problem(spelled, what)
    if problem:
        return text, problem
    read = unicode.to_ascii(text).text
    return read, prescan.first_problem(read, what)


def check_not_empty(listing: Listing) -> str:
    if listing.variables or listing.definitions:
        return ""
    return "The module is empty: it declares no VARIABLES and defines no operators."


def check_contract_names(listing: Listing, contract: Contract, adapter: Adapter | None) -> str:
    """Every observed variable and target action the adapter maps to itself must exist in the
    spec; otherwise scoring would only report errors about the modules it generates."""
    adapter = adapter or Adapter.identity_for(contract)
    defined = {d.name for d in listing.definitions}
    variables = [
        v
        for v in contract.observed_variables()
        if adapter.variables.get(v, v) == v and v not in listing.variables
    ]
    actions = [
        name
        for name, action in contract.actions.items()
        if adapter.actions.get(name) == identity_action(name, action) and name not in defined
    ]
    if not variables and not actions:
        return check_action_arity(listing, contract, adapter)
    missing = [f"variable {v}" for v in variables] + [f"action {a}" for a in actions]
    return (
        f"The spec lacks the contract's {', '.join(missing)}. Use the contract's names, or map "
        "your own with an adapter; a starter adapter (replace each <...>):\n"
        + starter_adapter(contract, variables, actions)
    )


def check_action_arity(listing: Listing, contract: Contract, adapter: Adapter) -> str:
    """An action mapping that calls a definition of the spec must give it as many arguments as
    it takes; otherwise every conformance run fails on it (SANY: "requires N arguments")."""
    definitions = {d.name: d for d in listing.definitions}
    for name in contract.actions:
        mapping = adapter.actions.get(name, "")
        call = split_call(mapping)
        definition = definitions.get(call[0]) if call else None
        if call is None or definition is None or definition.kind != "operator":
            continue
        if len(call[1]) != len(definition.params):
            return (
                f"Line {definition.start_line}: the operator {definition.name} requires "
                f"{len(definition.params)} argument(s) ({', '.join(definition.params) or 'none'}), "
                f"but the mapping of the contract's action {name} calls it with "
                f"{len(call[1])}: `{mapping.strip()}`. Map {name} in an adapter "
                f"(`actions: {name}: ...`) to a call with the spec's arguments."
            )
    return ""


def starter_adapter(contract: Contract, variables: list[str], actions: list[str]) -> str:
    """Adapter YAML mapping the missing names; an actions section must list every action."""
    lines = []
    if variables:
        lines.append("variables:")
        lines += [f"  {v}: <your expression for {v}>" for v in variables]
    if actions:
        lines.append("actions:")
        for name, action in contract.actions.items():
            call = identity_action(name, action)
            lines.append(
                f"  {name}: {call.replace(name, f'<Your{name}>', 1) if name in actions else call}"
            )
    return "\n".join(lines)


# A header as written, for a text tree-sitter could not make a module of (a parse error).
_HEADER = re.compile(r"^\s*-{4,}\s*MODULE\s+([A-Za-z0-9_]+)\s*-{4,}", re.MULTILINE)


def written_headers(text: str) -> list[str]:
    return _HEADER.findall(text)


def check_module(listing: Listing, suggested: str, text: str = "") -> str:
    names = listing.modules
    if not names and len(written_headers(text)) == 1:
        return ""  # the header is there and a parse error hid it: SANY names the error
    if not names:
        return f"No module header found: the spec must start with ---- MODULE {suggested} ----."
    if len(names) > 1:
        return f"The spec declares {len(names)} modules ({', '.join(names)}); submit exactly one."
    return ""


def check_forbidden(listing: Listing) -> str:
    for name, why in FORBIDDEN.items():
        if name in listing.first_lines:
            line = listing.first_lines[name]
            return f"Line {line}: {name} is not allowed in an official submission ({why})."
    return ""


def check_extends(listing: Listing, allowed: Collection[str]) -> str:
    for line, module in listing.uses:
        if module not in allowed:
            return (
                f"Line {line}: EXTENDS {module} is not allowed; this task allows "
                f"{', '.join(sorted(allowed))}."
            )
    return ""


def check_precheck(text: str, contract: Contract, module: str) -> str:
    """The scorer's own refusal list, so lint never passes what scoring would refuse."""
    reasons = precheck_spec(text, contract.extends_allowed, module)
    return f"The spec cannot be scored: {'; '.join(reasons)}." if reasons else ""


def sany_problem(run: ToolRun, limits: Limits) -> str:
    if run.status == "ok":
        return ""
    if run.status == "timeout":
        return f"SANY did not finish parsing within {limits.wall_seconds:.0f} s."
    return "SANY rejected the module: " + sany_summary(run.output)


def sany_summary(output: str) -> str:
    """What SANY says is wrong, with the line it points at, without its parser stack."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    encountered = [line for line in lines if line.startswith("Encountered")]
    if encountered:
        # A parse error: SANY follows it with the grammar rules it was inside; only noise here.
        return encountered[0][:600]
    if "Semantic errors:" in lines:
        return _semantic_errors(lines[lines.index("Semantic errors:") + 1 :])[:600]
    keep = [
        line
        for line in lines
        if (lines_in(line) or "Unknown" in line or "rror" in line)
        and not line.startswith(("***", "Parsing", "Semantic processing", "Fatal errors"))
    ]
    return " ".join(dict.fromkeys(keep))[:600] or "parse failed (no message)."


_LOCATION = re.compile(r"^line (\d+), col (\d+) to line \d+, col \d+ of module (\S+)$")


def _semantic_errors(lines: list[str]) -> str:
    """SANY's semantic errors as `line L, col C: message`, each location with the message
    printed under it (SANY prints them on separate lines)."""
    found: list[str] = []
    for line in lines:
        location = _LOCATION.match(line)
        if location is not None:
            found.append(f"line {location.group(1)}, col {location.group(2)}:")
        elif found and not line.startswith("***") and found[-1].endswith(":"):
            found[-1] += " " + line
    return "; ".join(f for f in found if not f.endswith(":")) or "semantic errors (no message)."
