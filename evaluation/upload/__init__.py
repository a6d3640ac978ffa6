"""The upload check: a linear pre-scan, then the spec checks in a child interpreter
(docs/decisions/0028-access-and-hostile-input.md)."""
