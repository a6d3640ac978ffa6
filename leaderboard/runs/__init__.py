"""Presentation: a run's page and its drill-down, run against run window by window, and the
paired test."""
