"""What the benchmarks that start a real server share (no side effects on import: the server's
environment is the caller's)."""

import time

import requests


def wait_for_server(base: str, server) -> None:
    """Return once `base` answers; stop if the server process ends or 60 s pass."""
    for _ in range(300):
        if server.poll() is not None:
            raise SystemExit("the server stopped before answering")
        try:
            requests.get(f"{base}/methodology/", timeout=2)
            return
        except requests.ConnectionError:
            time.sleep(0.2)
    raise SystemExit("the server did not answer within 60 s")
