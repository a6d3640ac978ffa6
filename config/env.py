"""Small typed readers for settings that come from environment variables.

Each helper names the variable once and says what happens when it is absent, so
`config/settings.py` reads as a list of decisions rather than string parsing.
"""

import os
from pathlib import Path
from typing import Any, overload
from urllib.parse import urlparse

import dj_database_url


class ImproperlyConfiguredEnv(RuntimeError):
    pass


def load_env_file(path: Path) -> None:
    """Read KEY=VALUE lines of a local `.env` (written by bin/demo) into os.environ, without
    overriding anything the environment already sets: the environment always wins. A missing
    file is fine; a malformed line names itself."""
    if not path.is_file():
        return
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.removeprefix("export ").partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key.isidentifier():
            raise ImproperlyConfiguredEnv(f"{path}:{number}: expected KEY=VALUE, got {line!r}")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        os.environ.setdefault(key, value)


# With a string default the result is always a string; only a variable without one can be None.
@overload
def env_str(name: str, default: str) -> str: ...
@overload
def env_str(name: str, default: None = None) -> str | None: ...
def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None or value == "" else value


def env_path(name: str) -> Path | None:
    """An optional folder: None when unset or empty, else its absolute path. A folder that is
    not there is a configuration error, said at start-up rather than at the first use."""
    value = env_str(name)
    if value is None:
        return None
    path = Path(value).expanduser()
    if not path.is_dir():
        raise ImproperlyConfiguredEnv(f"{name}={value!r} is not a directory")
    return path.resolve()


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfiguredEnv(f"{name}={value!r} is not a boolean (use 1/0, true/false)")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ImproperlyConfiguredEnv(f"{name}={value!r} is not an integer") from exc


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return float(value)
    except ValueError as exc:
        raise ImproperlyConfiguredEnv(f"{name}={value!r} is not a number") from exc


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = (os.environ.get(name) or "").strip().lower() or default
    if value not in choices:
        raise ImproperlyConfiguredEnv(f"{name}={value!r}: choose one of {', '.join(choices)}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def database_from_url(url: str, base_dir: Path) -> dj_database_url.DBConfig:
    """Turn DATABASE_URL into a Django DATABASES entry (postgres:// or sqlite:///path).

    PostgreSQL URLs go through dj-database-url: it decodes the parts (a socket directory as the
    percent-encoded host, IPv6 hosts) and keeps the query string as OPTIONS, so
    `?sslmode=require&connect_timeout=5` reaches psycopg. SQLite stays ours: a relative path is
    relative to the project, not to the working directory, and transactions are IMMEDIATE."""
    parsed = urlparse(url)
    if parsed.scheme in {"postgres", "postgresql"}:
        return dj_database_url.parse(url, conn_max_age=60)
    if parsed.scheme == "sqlite":
        # sqlite:///relative/path or sqlite:////absolute/path
        raw = url[len("sqlite:///") :]
        path = Path(raw) if raw.startswith("/") else base_dir / raw
        # IMMEDIATE: a transaction takes the write lock when it begins, so concurrent submissions
        # queue up behind it (up to `timeout` seconds) instead of failing with "database is
        # locked" when a read transaction tries to become a write one.
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(path),
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
        }
    raise ImproperlyConfiguredEnv(f"DATABASE_URL scheme {parsed.scheme!r} is not supported")


_RATE_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def env_rate(name: str, default: str) -> tuple[int, int] | None:
    """A rate such as "5/h" or "20/10m" as (requests, seconds); "off" disables the limit."""
    value = (os.environ.get(name) or default).strip().lower()
    if value == "off":
        return None
    count, _, period = value.partition("/")
    number, unit = period[:-1] or "1", period[-1:]
    if not (count.isascii() and count.isdigit() and number.isascii() and number.isdigit()):
        unit = ""
    if unit not in _RATE_UNITS or int(count) < 1 or int(number) < 1:
        raise ImproperlyConfiguredEnv(
            f"{name}={value!r} is not a rate: use <requests>/<period> such as 5/h, 20/10m, "
            "100/d (units s, m, h, d), or off"
        )
    return int(count), int(number) * _RATE_UNITS[unit]


def cache_from_url(url: str | None) -> dict[str, Any]:
    """CACHES["default"] from CACHE_URL: redis://host:port/db, or in-process memory when unset."""
    if not url:
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    if urlparse(url).scheme in {"redis", "rediss"}:
        # Django's Redis cache, failing soft on reads and writes: while Redis does not answer the
        # board is computed from the database instead of every page failing.
        return {
            "BACKEND": "leaderboard.web.cache_backend.FailSoftRedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    raise ImproperlyConfiguredEnv("CACHE_URL must be a redis:// URL (or unset for local memory)")
