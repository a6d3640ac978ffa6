"""Test settings: the normal settings with a throwaway key.

The database still comes from DATABASE_URL (SQLite by default, PostgreSQL in CI).
"""

import os

os.environ.setdefault("SECRET_KEY", "test-only-not-secret")
os.environ.setdefault("DEBUG", "1")

from config.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
