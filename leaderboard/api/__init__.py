"""Presentation: the JSON API (docs/API.md)."""
