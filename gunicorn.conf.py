"""gunicorn settings, read from this file when gunicorn starts in the project folder:

    gunicorn config.wsgi:application

Threads, because an upload waits up to LINT_SLOT_WAIT_SECONDS + LINT_TIMEOUT_SECONDS for its
check child while holding no lock and no CPU: other requests of the same worker go on meanwhile.
The worker timeout must exceed that wait, or gunicorn would kill a worker in the middle of an
honest upload. Command-line options override these.
"""

import os


def _int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


bind = os.environ.get("GUNICORN_BIND") or f"127.0.0.1:{_int('PORT', 8000)}"
workers = _int("WEB_CONCURRENCY", 3)
worker_class = "gthread"
threads = _int("GUNICORN_THREADS", 4)
timeout = _int("GUNICORN_TIMEOUT", 90)  # > LINT_SLOT_WAIT_SECONDS (30) + LINT_TIMEOUT_SECONDS (20)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)
keepalive = _int("GUNICORN_KEEPALIVE", 5)
# Bounds on what a client may send before Django sees it (the body cap is Django's).
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
# A worker is replaced after this many requests (with jitter), so slow leaks cannot pile up.
max_requests = _int("GUNICORN_MAX_REQUESTS", 2000)
max_requests_jitter = 200
accesslog = "-"
