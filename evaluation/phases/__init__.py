"""The four phases (P1 syntax, P2 runtime, P3 conformance, P4 invariants) and P4's credit rule:
text and contract in, a `PhaseOutcome` out."""
