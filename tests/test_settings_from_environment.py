"""Settings come from environment variables through typed helpers; production needs a secret."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from config.env import (
    ImproperlyConfiguredEnv,
    database_from_url,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_rate,
)

ROOT = Path(__file__).resolve().parent.parent


def test_booleans_accept_the_usual_spellings_and_reject_others(monkeypatch):
    for text, expected in [("1", True), ("true", True), ("On", True), ("0", False), ("no", False)]:
        monkeypatch.setenv("SMB_FLAG", text)
        assert env_bool("SMB_FLAG", default=not expected) is expected
    monkeypatch.setenv("SMB_FLAG", "maybe")
    with pytest.raises(ImproperlyConfiguredEnv, match="SMB_FLAG='maybe' is not a boolean"):
        env_bool("SMB_FLAG", default=False)


def test_integers_and_lists_fall_back_to_defaults_only_when_unset(monkeypatch):
    monkeypatch.delenv("SMB_NUMBER", raising=False)
    assert env_int("SMB_NUMBER", 7) == 7
    monkeypatch.setenv("SMB_NUMBER", "12")
    assert env_int("SMB_NUMBER", 7) == 12
    monkeypatch.setenv("SMB_NUMBER", "twelve")
    with pytest.raises(ImproperlyConfiguredEnv, match="not an integer"):
        env_int("SMB_NUMBER", 7)
    monkeypatch.setenv("SMB_HOSTS", "a.example, b.example,,")
    assert env_list("SMB_HOSTS", []) == ["a.example", "b.example"]


def test_rates_read_requests_per_period_or_off(monkeypatch):
    monkeypatch.delenv("SMB_RATE", raising=False)
    assert env_rate("SMB_RATE", "5/h") == (5, 3600)
    for text, expected in [("20/10m", (20, 600)), ("1/s", (1, 1)), ("100/2d", (100, 172800))]:
        monkeypatch.setenv("SMB_RATE", text)
        assert env_rate("SMB_RATE", "5/h") == expected
    monkeypatch.setenv("SMB_RATE", "off")
    assert env_rate("SMB_RATE", "5/h") is None
    for bad in ("5", "5/week", "0/h", "x/h", "5/0m", "²/h"):
        monkeypatch.setenv("SMB_RATE", bad)
        with pytest.raises(ImproperlyConfiguredEnv, match="is not a rate"):
            env_rate("SMB_RATE", "5/h")


def test_database_url_selects_postgresql_or_a_sqlite_file():
    pg = database_from_url("postgres://user:p%40ss@db.example:6543/board", ROOT)
    assert pg["ENGINE"] == "django.db.backends.postgresql"
    assert (pg["NAME"], pg["USER"], pg["PASSWORD"], pg["HOST"], pg["PORT"]) == (
        "board",
        "user",
        "p@ss",
        "db.example",
        6543,
    )
    assert "OPTIONS" not in pg  # libpq's defaults, as before
    relative = database_from_url("sqlite:///var/db.sqlite3", ROOT)
    assert relative == {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(ROOT / "var/db.sqlite3"),
        "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
    }
    absolute = database_from_url("sqlite:////srv/board.sqlite3", ROOT)
    assert absolute["NAME"] == "/srv/board.sqlite3"
    with pytest.raises(ImproperlyConfiguredEnv, match="'mysql' is not supported"):
        database_from_url("mysql://localhost/board", ROOT)


def test_a_postgresql_url_keeps_its_query_string_as_options():
    db = database_from_url("postgres://u:p@h:5432/db?sslmode=require", ROOT)
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "db",
        "u",
        "p",
        "h",
        5432,
    )
    assert db["OPTIONS"] == {"sslmode": "require"}
    assert db["CONN_MAX_AGE"] == 60
    socket_dir = database_from_url("postgresql://%2Fvar%2Frun%2Fpostgresql/board", ROOT)
    assert (socket_dir["HOST"], socket_dir["NAME"]) == ("/var/run/postgresql", "board")


def _import_settings(**env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-c", "import config.settings as s; print(s.DEBUG, len(s.SECRET_KEY))"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_mode_refuses_to_start_without_a_secret_key():
    result = _import_settings(DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


def test_production_mode_starts_with_a_secret_key_and_debug_mode_without_one():
    assert _import_settings(DEBUG="0", SECRET_KEY="x" * 50).stdout.split() == ["False", "50"]
    debug = _import_settings(DEBUG="1")
    assert debug.returncode == 0, debug.stderr
    assert debug.stdout.split()[0] == "True"


def test_the_scorer_backend_is_one_of_the_known_names(monkeypatch):
    monkeypatch.delenv("SMB_BACKEND", raising=False)
    assert env_choice("SMB_BACKEND", "local", ("local", "docker")) == "local"
    monkeypatch.setenv("SMB_BACKEND", "Docker")
    assert env_choice("SMB_BACKEND", "local", ("local", "docker")) == "docker"
    monkeypatch.setenv("SMB_BACKEND", "podman")
    with pytest.raises(ImproperlyConfiguredEnv, match="SMB_BACKEND='podman': choose one of"):
        env_choice("SMB_BACKEND", "local", ("local", "docker"))
    monkeypatch.setenv("SMB_CPUS", "1.5")
    assert env_float("SMB_CPUS", 2.0) == 1.5
    monkeypatch.setenv("SMB_CPUS", "many")
    with pytest.raises(ImproperlyConfiguredEnv, match="not a number"):
        env_float("SMB_CPUS", 2.0)


def test_a_stale_limit_within_the_job_timeout_is_refused():
    # Issue 10, hole 8: both at 3600 s let the reaper re-queue a run that was still scoring.
    result = _import_settings(DEBUG="1", RQ_JOB_TIMEOUT="3600", SCORING_STALE_AFTER_SECONDS="3600")
    assert result.returncode != 0
    assert "SCORING_STALE_AFTER_SECONDS=3600 must exceed RQ_JOB_TIMEOUT=3600" in result.stderr
    default = _import_settings(DEBUG="1", RQ_JOB_TIMEOUT="3600", SCORING_STALE_AFTER_SECONDS="")
    assert default.returncode == 0, default.stderr
