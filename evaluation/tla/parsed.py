"""A spec read once per scoring: the text as submitted, the text the tools read, one parse.

`pipeline.score_spec` makes the value once (`parse_spec`) and hands it to every phase, so the
spec is parsed by tree-sitter once however many phases and checks read its structure. The phases
still accept plain text (`spec_of`): tests, benches and tools call them directly.

The value is read, never changed: the listing's lists are shared by every phase of the scoring.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Tree

from evaluation.tla import treesitter, unicode
from evaluation.tla.splitter import Listing, listing_from_tree


@dataclass(frozen=True)
class ParsedSpec:
    submitted: str  # as the submitter sent it (the stored spec)
    reading: unicode.AsciiSpec  # what SANY/TLC are given: Unicode symbols spelled in ASCII
    source: bytes  # reading.text in UTF-8, which the tree's byte offsets index
    tree: Tree  # tree-sitter's parse of the reading
    listing: Listing  # its top-level units (definitions, declarations, EXTENDS, ASSUMEs)

    @property
    def text(self) -> str:
        """The text every phase checks (SANY's line numbers are the submitter's)."""
        return self.reading.text

    @property
    def module(self) -> str | None:
        """The name in the module header (None when there is none)."""
        return self.listing.module

    @property
    def defined(self) -> frozenset[str]:
        """Names of the module's top-level definitions."""
        return frozenset(d.name for d in self.listing.definitions)

    @property
    def constants(self) -> list[str]:
        return self.listing.constants

    @property
    def variables(self) -> list[str]:
        return self.listing.variables


def parse_spec(submitted: str) -> ParsedSpec:
    """The submitted spec as the tools will read it (`tla.unicode`), parsed once."""
    return _parsed(submitted, unicode.to_ascii(submitted))


def spec_of(spec: str | ParsedSpec) -> ParsedSpec:
    """`spec` itself, or plain text parsed as it is: a caller that hands a phase text has already
    chosen the text to check (the pipeline spells Unicode symbols out before any phase)."""
    if isinstance(spec, ParsedSpec):
        return spec
    return _parsed(spec, unicode.AsciiSpec(spec))


def _parsed(submitted: str, reading: unicode.AsciiSpec) -> ParsedSpec:
    source = reading.text.encode("utf-8")
    tree = treesitter.parse(source)
    return ParsedSpec(submitted, reading, source, tree, listing_from_tree(reading.text, tree))
