"""gunicorn settings, read from this file when gunicorn starts in the project folder:

    gunicorn config.wsgi:application

Bind address, workers and threads come from the environment or the project's `.env`, as the
settings do (GUNICORN_BIND, else HOST:PORT; WEB_CONCURRENCY; GUNICORN_THREADS).

Threads, because an upload waits up to LINT_SLOT_WAIT_SECONDS + LINT_TIMEOUT_SECONDS for its
check child while holding no lock and no CPU: other requests of the same worker go on meanwhile.
The worker timeout must exceed that wait, or gunicorn would kill a worker in the middle of an
honest upload. Command-line options override these.
"""

import gc
import os
import sys
from pathlib import Path

# gunicorn executes this file before it imports the project: make `config` importable from here.
ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from config.env import env_int, env_str, load_env_file  # noqa: E402

# The same .env as config/settings.py (ENV_FILE names another, ENV_FILE="" none); the
# environment wins over it.
_ENV_FILE = os.environ.get("ENV_FILE", str(ROOT / ".env"))
if _ENV_FILE:
    load_env_file(Path(_ENV_FILE))

bind = env_str("GUNICORN_BIND") or f"{env_str('HOST', '127.0.0.1')}:{env_int('PORT', 8000)}"
workers = env_int("WEB_CONCURRENCY", 3)
worker_class = "gthread"
threads = env_int("GUNICORN_THREADS", 4)
# Longer than LINT_SLOT_WAIT_SECONDS (30) + LINT_TIMEOUT_SECONDS (20).
timeout = env_int("GUNICORN_TIMEOUT", 90)
graceful_timeout = env_int("GUNICORN_GRACEFUL_TIMEOUT", 30)
keepalive = env_int("GUNICORN_KEEPALIVE", 5)
# Bounds on what a client may send before Django sees it (the body cap is Django's).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
# A worker is replaced after this many requests (with jitter), so slow leaks cannot pile up.
max_requests = env_int("GUNICORN_MAX_REQUESTS", 2000)
max_requests_jitter = 200
accesslog = "-"


def post_worker_init(worker):
    """Move what loading the project left (Django, pandas, plotly: ~120,000 objects) out of the
    collector's reach, so that a full collection during a request walks only what requests
    made; bench/board_incremental.py serves its requests the same way (gc.freeze after setup)."""
    gc.collect()
    gc.freeze()
