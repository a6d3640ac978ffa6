"""Presentation: sign-up, sign-in, "my runs", API tokens."""
