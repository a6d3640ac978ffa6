"""The `manage.py` commands: scoring, imports, releases, the reaper, the board's rebuild."""
