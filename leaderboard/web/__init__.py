"""Presentation: the board's pages (home, models, tasks, methodology, API docs), the board's
warming after a change, and the request middleware (outages, the cache backend)."""
