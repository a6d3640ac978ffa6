"""P3 conformance: batched per-window transition checks; `check_conformance` is the entry."""

from evaluation.phases.conformance.check import check_conformance

__all__ = ["check_conformance"]
