"""Test settings: the normal settings with a throwaway key.

The database still comes from DATABASE_URL (SQLite by default, PostgreSQL in CI).
"""

import os

# A developer's .env (bin/demo writes one) must not change what the tests see.
os.environ.setdefault("ENV_FILE", "")
os.environ.setdefault("SECRET_KEY", "test-only-not-secret")
os.environ.setdefault("DEBUG", "1")
# Every test client comes from 127.0.0.1, and the local-memory cache outlives a test: per-address
# limits would make unrelated tests fail by their order. tests/test_rate_limits.py turns each on.
for _name in (
    "RATE_LIMIT_SIGNUPS_PER_IP",
    "RATE_LIMIT_LOGINS_PER_IP",
    "RATE_LIMIT_UPLOADS_PER_IP",
    "RATE_LIMIT_CUSTOM_BOARDS_PER_IP",
):
    os.environ.setdefault(_name, "off")

from config.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
