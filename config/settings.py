"""Settings for the SysMoBench leaderboard; every knob comes from the environment.

`.env.example` documents each variable. Defaults make a laptop demo work (SQLite,
DEBUG on, in-process jobs when no Redis answers); production must set SECRET_KEY.
"""

import os
from pathlib import Path
from typing import Any

from config.env import (
    ImproperlyConfiguredEnv,
    cache_from_url,
    database_from_url,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_path,
    env_rate,
    env_str,
    load_env_file,
)

BASE_DIR = Path(__file__).resolve().parent.parent

# A local .env (bin/demo writes one) fills in what the environment does not set. ENV_FILE names
# another file; ENV_FILE="" reads none (the tests do that, so a developer's .env cannot leak in).
_ENV_FILE = os.environ.get("ENV_FILE", str(BASE_DIR / ".env"))
if _ENV_FILE:
    load_env_file(Path(_ENV_FILE))

DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfiguredEnv("SECRET_KEY must be set when DEBUG is off")
    # Only reachable with DEBUG on: a fixed key is harmless for a local demo.
    SECRET_KEY = "insecure-local-development-key"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_rq",
    "leaderboard",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "leaderboard.web.middleware.content_security_policy",
    "leaderboard.web.middleware.body_size_cap",
    # Before anything reads a form or the admin's query (both answer 400 rather than a 500).
    "leaderboard.web.middleware.unreadable_body_as_400",
    "leaderboard.web.middleware.no_nul_in_admin_queries",
    "leaderboard.web.middleware.api_errors_as_json",
    "leaderboard.web.outage.DatabaseOutageAs503",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "leaderboard.web.middleware.RqDashboardLookupsAs404",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": database_from_url(env_str("DATABASE_URL", "sqlite:///var/db.sqlite3"), BASE_DIR)
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Rate-limit counters and the board cache live here: with more than one web process, point
# CACHE_URL at Redis so every process counts against the same limits.
CACHES = {"default": cache_from_url(env_str("CACHE_URL"))}

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"


def _plotly_js_dir() -> Path:
    # plotly.js ships inside the pinned plotly wheel; serving it from there keeps the page off
    # any CDN without vendoring a 4 MB file. find_spec locates the package without importing it
    # (importing plotly costs about 0.1 s in every process that loads settings).
    from importlib.util import find_spec

    spec = find_spec("plotly")
    if spec is None or not spec.submodule_search_locations:
        raise ImproperlyConfiguredEnv("the plotly package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "package_data"


STATICFILES_DIRS = [BASE_DIR / "static", ("plotly", _plotly_js_dir())]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = True

# Jobs. REDIS_URL unset or unreachable means jobs run in-process
# (see leaderboard/scoring/queueing.py).
REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
# One attempt's limit: above every contract's `Budgets.worst_case_seconds` (the sum of its
# phases' safety nets; tests/test_contract_budgets.py), so the job never ends a scoring the
# scorer's own nets would have let finish.
RQ_JOB_TIMEOUT = env_int("RQ_JOB_TIMEOUT", 7800)
# django-rq's own configuration schema (per queue: URL, DEFAULT_TIMEOUT, ...).
# `evaluation` for submissions, `evaluation-bulk` for operators' loads (archive, demo sample),
# `evaluation-rescore` for rescorings of a release: a worker listens to all three, in that order
# (leaderboard/scoring/queueing.py).
RQ_QUEUES: dict[str, dict[str, Any]] = {
    "evaluation": {"URL": REDIS_URL, "DEFAULT_TIMEOUT": RQ_JOB_TIMEOUT},
    "evaluation-bulk": {"URL": REDIS_URL, "DEFAULT_TIMEOUT": RQ_JOB_TIMEOUT},
    "evaluation-rescore": {"URL": REDIS_URL, "DEFAULT_TIMEOUT": RQ_JOB_TIMEOUT},
}
RQ_FORCE_INLINE = env_bool("RQ_FORCE_INLINE", default=False)

# Scoring.
# The public corpus ships with the project (corpus/PROVENANCE.md); a SysMoBench checkout of the
# same layout can be named instead.
SYSMOBENCH_DATA_DIR = Path(env_str("SYSMOBENCH_DATA_DIR", str(BASE_DIR / "corpus")))
TASKS_DATA_DIR = BASE_DIR / "tasks_data"
# The held-out traces (a folder in SYSMOBENCH_DATA_DIR's layout, made by bin/make-traces with
# private seeds, never served, exported or committed): their windows give the official P3.
# Unset: P3 is scored on the public windows alone (docs/decisions/0012-held-out-traces.md).
HELDOUT_DATA_DIR = env_path("HELDOUT_DATA_DIR")
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 256 * 1024)
# The whole request body: a spec and an adapter at the limit, plus the form's other fields. A body
# over it is refused from its Content-Length, unread (leaderboard/web/middleware.py).
REQUEST_BODY_MAX_BYTES = env_int("REQUEST_BODY_MAX_BYTES", 2 * UPLOAD_MAX_BYTES + 64 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES
DATA_UPLOAD_MAX_NUMBER_FIELDS = 100
DATA_UPLOAD_MAX_NUMBER_FILES = 4
# The upload check (parse + SANY) runs in a child process: at most LINT_CONCURRENCY at once on
# this host (lock files in LINT_SLOT_DIR), each killed after LINT_TIMEOUT_SECONDS; an upload
# that finds every slot busy for LINT_SLOT_WAIT_SECONDS gets a 429 with Retry-After.
LINT_CONCURRENCY = env_int("LINT_CONCURRENCY", 4)
LINT_TIMEOUT_SECONDS = env_float("LINT_TIMEOUT_SECONDS", 20.0)
LINT_SLOT_WAIT_SECONDS = env_float("LINT_SLOT_WAIT_SECONDS", 30.0)
LINT_SLOT_DIR = Path(env_str("LINT_SLOT_DIR", str(BASE_DIR / "var" / "lint-slots")))
SCORING_MAX_ATTEMPTS = env_int("SCORING_MAX_ATTEMPTS", 3)
SCORING_STALE_AFTER_SECONDS = env_int("SCORING_STALE_AFTER_SECONDS", RQ_JOB_TIMEOUT + 900)
# rq's parent worker kills a work-horse 60 s after the job timeout; a run older than that is
# abandoned. A stale limit within it would re-queue a live attempt
# (docs/decisions/0002-one-attempt-owns-a-run.md).
RQ_HORSE_KILL_GRACE_SECONDS = 60
if SCORING_STALE_AFTER_SECONDS <= RQ_JOB_TIMEOUT + RQ_HORSE_KILL_GRACE_SECONDS:
    raise ImproperlyConfiguredEnv(
        f"SCORING_STALE_AFTER_SECONDS={SCORING_STALE_AFTER_SECONDS} must exceed RQ_JOB_TIMEOUT"
        f"={RQ_JOB_TIMEOUT} by more than {RQ_HORSE_KILL_GRACE_SECONDS} s, or the reaper "
        "re-queues runs that are still being scored"
    )
# Where a run is scored: "local" (in the worker, per-call sandbox) or "docker" (one container
# per run, evaluation/backends/container.py). The SCORER_DOCKER_* settings apply to the latter.
SCORER_BACKEND = env_choice("SCORER_BACKEND", "local", ("local", "docker"))
SCORER_DOCKER_IMAGE = env_str("SCORER_DOCKER_IMAGE", "sysmobench-scorer:latest")
SCORER_DOCKER_CPUS = env_float("SCORER_DOCKER_CPUS", 2.0)
SCORER_DOCKER_PIDS = env_int("SCORER_DOCKER_PIDS", 256)
SCORER_DOCKER_TMPFS_MB = env_int("SCORER_DOCKER_TMPFS_MB", 768)
SCORER_DOCKER_INPUT_DIR = env_str("SCORER_DOCKER_INPUT_DIR", None)
SCORER_DOCKER_MAX_SECONDS = env_int("SCORER_DOCKER_MAX_SECONDS", 0)

# Accounts (Django's auth). No e-mail is sent today; EMAIL_BACKEND is where a password-reset
# flow would plug in.
LOGIN_URL = "login"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]
LOGIN_REDIRECT_URL = "my_runs"
LOGOUT_REDIRECT_URL = "leaderboard"
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")

# Quotas per account (README, "Accounts, review and quotas") and rate limits per client
# address; over them, a 429 with Retry-After. Rates read "<requests>/<period>" (5/h, 20/10m)
# or "off".
QUOTA_QUEUED_RUNS_PER_USER = env_int("QUOTA_QUEUED_RUNS_PER_USER", 5)
QUOTA_RUNS_PER_USER_PER_DAY = env_int("QUOTA_RUNS_PER_USER_PER_DAY", 50)
# Worker time an account's runs may take in any 24 hours (the phases' own durations: a retry
# the machine caused is not charged). Spent, a new run waits until older ones turn a day old.
QUOTA_WORKER_SECONDS_PER_USER_PER_DAY = env_int("QUOTA_WORKER_SECONDS_PER_USER_PER_DAY", 7200)
RATE_LIMIT_SIGNUPS_PER_IP = env_rate("RATE_LIMIT_SIGNUPS_PER_IP", "5/h")
RATE_LIMIT_LOGINS_PER_IP = env_rate("RATE_LIMIT_LOGINS_PER_IP", "20/10m")
RATE_LIMIT_UPLOADS_PER_IP = env_rate("RATE_LIMIT_UPLOADS_PER_IP", "60/h")
# Boards under weights no one asked for yet (each costs a web process a board's arithmetic);
# a board already computed is not counted.
RATE_LIMIT_CUSTOM_BOARDS_PER_IP = env_rate("RATE_LIMIT_CUSTOM_BOARDS_PER_IP", "30/10m")
# How many reverse proxies in front of the site append to X-Forwarded-For; 0 trusts only the
# socket's address (a client can write any X-Forwarded-For it likes).
RATE_LIMIT_PROXY_COUNT = env_int("RATE_LIMIT_PROXY_COUNT", 0)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# Behind a TLS-terminating proxy: trust its X-Forwarded-Proto (only if the proxy always sets it,
# overwriting the client's), so request.is_secure() and the API's absolute links say https.
if env_bool("TRUST_X_FORWARDED_PROTO", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Every script and stylesheet is a static file of this site (plotly.js included); the charts'
# data sits in <script type="application/json"> blocks, which are data, not script. Inline style
# attributes stay allowed (the run page's pass-rate bars). plotly.js adds two <style> elements:
# an empty one it fills through the CSSOM (addStyleRule) and the maplibre CSS as fixed text. Their
# hashes allow exactly those two and no other inline CSS. They belong to the pinned plotly
# (plotly.js 4.1.1); tests/test_browser_pages_pass_the_csp.py recomputes them from the installed
# plotly.min.js, so an upgrade that changes them fails there first.
PLOTLY_STYLE_HASHES = (
    "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",  # the empty style element
    "'sha256-ji27qzEtxXZW+7dun6UwjHXJ18e6WAin1VvNtkzIE/o='",  # maplibre's CSS
)
CONTENT_SECURITY_POLICY = env_str(
    "CONTENT_SECURITY_POLICY",
    f"default-src 'self'; script-src 'self'; style-src 'self'; "
    f"style-src-elem 'self' {' '.join(PLOTLY_STYLE_HASHES)}; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
)
CONTENT_SECURITY_POLICY_REPORT_ONLY = env_bool("CONTENT_SECURITY_POLICY_REPORT_ONLY", False)

if not DEBUG:
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=True)
    CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=True)
