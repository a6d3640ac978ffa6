"""Small typed readers for settings that come from environment variables.

Each helper names the variable once and says what happens when it is absent, so
`config/settings.py` reads as a list of decisions rather than string parsing.
"""

import os
from pathlib import Path
from urllib.parse import unquote, urlparse


class ImproperlyConfiguredEnv(RuntimeError):
    pass


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None or value == "" else value


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


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def database_from_url(url: str, base_dir: Path) -> dict:
    """Turn DATABASE_URL into a Django DATABASES entry (postgres:// or sqlite:///path)."""
    parsed = urlparse(url)
    if parsed.scheme in {"postgres", "postgresql"}:
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")) or "postgres",
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "CONN_MAX_AGE": 60,
        }
    if parsed.scheme == "sqlite":
        # sqlite:///relative/path or sqlite:////absolute/path
        raw = url[len("sqlite:///") :]
        path = Path(raw) if raw.startswith("/") else base_dir / raw
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path)}
    raise ImproperlyConfiguredEnv(f"DATABASE_URL scheme {parsed.scheme!r} is not supported")
