"""Presentation: model against model (the overview and its export)."""
