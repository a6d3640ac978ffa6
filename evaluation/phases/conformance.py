"""P3 conformance (docs/ARCHITECTURE.md, "Phases"); the work is in `evaluation.conformance`."""

from evaluation.conformance.check import check_conformance

__all__ = ["check_conformance"]
