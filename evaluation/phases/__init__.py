"""The four phases (P1 syntax, P2 runtime, P3 conformance, P4 invariants with its credit rule),
each text and contract in, a `PhaseOutcome` out; `evaluation/pipeline.py` runs them as a table."""
