"""P3 conformance: batched per-window transition checks (entry point: `check.check_conformance`)."""
