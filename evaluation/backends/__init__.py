"""Where a scoring runs besides the caller's process: one locked-down container per run
(docs/decisions/0034-scorer-container.md)."""
