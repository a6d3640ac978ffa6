"""Reasons to refuse a spec before any tool runs: modules it may not use, and `TLCSet`."""

from __future__ import annotations

import re
from collections.abc import Collection

from evaluation.tla.parsed import ParsedSpec, spec_of
from evaluation.tla.splitter import Listing, list_module

STANDARD_MODULES = frozenset(
    {
        "TLC",
        "Sequences",
        "Naturals",
        "Integers",
        "FiniteSets",
        "Bags",
        "Reals",
        "RealTime",
        "Randomization",
        "Toolbox",
    }
)
LIBRARY_MODULES = frozenset({"SequencesExt", "FiniteSetsExt", "Functions", "Folds"})
DEFAULT_ALLOWED = STANDARD_MODULES | LIBRARY_MODULES
IO_MODULES = {
    "IOUtils": "it reads and writes files and runs processes",
    "Json": "it reads and writes files",
    "CSV": "it reads and writes files",
    "TLCExt": "it controls the model checker itself",
}
# Names a spec's own module may not take: TLC's modules and ours would be shadowed by it (or
# refused by the sandbox), and the scorer's generated modules are named from these stems (with
# a per-run nonce, so a spec cannot collide with one; the stems are refused all the same so
# that no spec looks like one of them in a run directory or a TLC message).
RESERVED_MODULES = STANDARD_MODULES | LIBRARY_MODULES | frozenset(IO_MODULES) | {"TLAPS"}
GENERATED_MODULE = re.compile(r"^(?:_Runtime|_Fire|ConfWrap|SMB(?:[0-9a-f]{8}|Levels)|_D\d+$)")
TLCSET = re.compile(r"\bTLCSet\b")
_COMMENT = re.compile(r"\(\*.*?\*\)|\\\*[^\n]*", re.DOTALL)
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def strip_comments(text: str) -> str:
    """Module text without strings and comments (non-nested block comments suffice for
    a token search: a nested comment can only hide text, never add a token)."""
    return _COMMENT.sub(" ", _STRING.sub('""', text))


def listing_of(text: str, parsed: ParsedSpec | None) -> Listing:
    """The listing of exactly `text`: `parsed`'s when it is the parse of this very text (the
    pipeline's spec, parsed once), a new parse otherwise. The texts are compared, never assumed:
    a module TLC is given that differs by one character from the parsed spec is parsed itself."""
    if parsed is not None and parsed.text == text:
        return parsed.listing
    return list_module(text)


def uses_tlcset(text: str, parsed: ParsedSpec | None = None) -> bool:
    """TLCSet anywhere, found both by token search and as a parsed identifier (tree-sitter), so
    neither a quoting trick that fools the comment stripper nor odd spacing hides it. `parsed`
    saves the parse when it is the parse of `text` (`listing_of`).

    A text without the six letters anywhere has neither: stripping replaces comments and
    strings with a space or `""`, which joins nothing, and an identifier tree-sitter finds is a
    piece of the text. So such a text (P3's and P4's generated modules, mostly) is not parsed:
    on locksvc's reference the parses of generated modules cost about 6 s of CPU a scoring."""
    if "TLCSet" not in text:
        return False
    if TLCSET.search(strip_comments(text)):
        return True
    return "TLCSet" in listing_of(text, parsed).identifiers


def reserved_module_name(module: str | None) -> str:
    """Why the spec's module may not have this name, or ""."""
    if module in RESERVED_MODULES:
        return (
            f"the module name {module} is reserved: it is the name of a module TLC or the "
            "scorer provides; rename the module"
        )
    if module and GENERATED_MODULE.match(module):
        return (
            f"the module name {module} is reserved: the scorer names the modules it generates "
            "this way; rename the module"
        )
    return ""


def precheck_spec(
    spec: str | ParsedSpec,
    extends_allowed: Collection[str] | None = None,
    module: str | None = None,
) -> list[str]:
    """Reasons to refuse a spec before any tool runs: a reserved module name, forbidden
    modules and `TLCSet`.

    `spec` is the text to check, or its parse (`ParsedSpec`: its text and listing are read).
    `module` is the spec's own module name (a self-INSTANCE is not foreign)."""
    allowed = set(extends_allowed or DEFAULT_ALLOWED)
    parsed = spec_of(spec)
    text, listing = parsed.text, parsed.listing
    reasons = [reason for reason in [reserved_module_name(module)] if reason]
    for name in dict.fromkeys(listing.extends + listing.instances):
        if name == module or name in allowed:
            continue
        if name in IO_MODULES:
            reasons.append(f"module {name} is refused: {IO_MODULES[name]}")
        else:
            reasons.append(
                f"module {name} is not available to specs (allowed: {', '.join(sorted(allowed))})"
            )
    if "TLCSet" in listing.identifiers or TLCSET.search(strip_comments(text)):
        reasons.append(
            'TLCSet is refused: TLCSet("exit", TRUE) can stop TLC early and forge a pass'
        )
    return reasons
