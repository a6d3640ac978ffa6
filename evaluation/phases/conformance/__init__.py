"""P3 conformance: each trace followed from the spec's Init, event by event, with its windows'
verdicts and the negatives (docs/decisions/0006-p3-follows-traces.md); `check_conformance` is the
entry."""

from evaluation.phases.conformance.check import check_conformance

__all__ = ["check_conformance"]
