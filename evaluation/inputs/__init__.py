"""What a scoring reads besides the spec: task contracts, adapters, a submitter's TLC cfg and the
typed budgets (docs/ARCHITECTURE.md, "Interfaces")."""
