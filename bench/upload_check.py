"""How long can one upload keep a web request busy, and does it slow anyone else down?

    .venv/bin/python bench/upload_check.py [--port 8611] [--redis-url redis://127.0.0.1:6379/13]

Starts `manage.py runserver` (threaded, DEBUG off) on a throwaway SQLite file and posts, through
the JSON API, uploads up to the size limit: an ordinary spec (full check, SANY included), the
issue's nesting cases (10k and 20k parentheses, a 60 KB nested spec), a chain of 30,000 unary
minus signs (18 s of tree-sitter without a single bracket), 60 KB of nested IF/THEN/ELSE that the
pre-scan lets through to the parser, a spec at the 256 KiB limit, and a 100 MB body (sent with its
Content-Length over a raw socket). While each upload is in flight a second thread fetches a page
every 50 ms; its worst latency shows whether the upload held the web process. Then 6 ordinary
uploads at once against LINT_CONCURRENCY=2. Prints one line per case and the worst upload time.

Every upload is built to be refused (the ordinary ones carry an undefined name that only SANY
finds), so nothing is queued; the Redis database is only named so that nothing touches DB 0.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests
from _server import wait_for_server

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = (ROOT / "tasks_data" / "spin" / "reference" / "spin.tla").read_text()
LIMIT = 256 * 1024


def lines(text: str, width: int = 2000) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


def module(body: str) -> str:
    return f"---- MODULE spin ----\n{body}\n====\n"


def ordinary() -> str:
    # Everything passes until SANY, which finds the undefined name: the full check's cost.
    return REFERENCE.replace("====", "Broken == UndefinedName\n====", 1)


def at_the_limit() -> str:
    head, tail = ordinary().rsplit("====", 1)
    padding = []
    n = 0
    while len(head) + sum(map(len, padding)) < LIMIT - 200:
        padding.append(f'Pad{n} == lockState = "locked" /\\ pc = pc\n')
        n += 1
    return head + "".join(padding) + "====" + tail


CASES = {
    "ordinary spec (SANY refuses an undefined name)": ordinary,
    "10k parentheses": lambda: module(lines("x == " + "(" * 10_000 + "1" + ")" * 10_000)),
    "20k parentheses": lambda: module(lines("x == " + "(" * 20_000 + "1" + ")" * 20_000)),
    "60 KB nested spec (brackets)": lambda: module(
        lines("x == " + "[a |-> " * 8_500 + "1" + "]" * 8_500)
    ),  # fmt: skip
    "30k unary minus (no brackets)": lambda: module(lines("x == " + "- " * 30_000 + "1")),
    "60 KB nested IF/THEN/ELSE": lambda: module(
        "x == " + "IF IF y THEN TRUE ELSE FALSE THEN\n" * 1_500 + "1" + lines(" ELSE 0" * 1_500)
    ),
    "spec at the 256 KiB limit": at_the_limit,
}


def manage(env, *args) -> str:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True).stdout  # fmt: skip


def prepare(env) -> str:
    manage(env, "migrate", "--noinput")
    script = """
from evaluation.inputs.contracts import load_contract
from leaderboard.tasks.importing import sync_task
from leaderboard.models import ModelUnderTest
from django.contrib.auth import get_user_model
from leaderboard.accounts.tokens import create_token
sync_task(load_contract("spin"))
user = get_user_model().objects.create_user("bench", password="a long pass phrase")
ModelUnderTest.objects.create(slug="bench", name="Bench", organisation="Bench", owner=user)
print("TOKEN", create_token(user, "bench")[0])
"""
    out = manage(env, "shell", "-c", script)
    return next(line.split()[1] for line in out.splitlines() if line.startswith("TOKEN"))


class Probe:
    """Fetches a page every 50 ms while running; remembers the slowest answer."""

    def __init__(self, base: str):
        self.base, self.worst, self.stop = base, 0.0, threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        session = requests.Session()
        while not self.stop.is_set():
            began = time.perf_counter()
            session.get(f"{self.base}/methodology/", timeout=120)
            self.worst = max(self.worst, time.perf_counter() - began)
            time.sleep(0.05)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def upload(base, token, spec) -> tuple[int, float, str]:
    body = {"task": "spin", "model": "bench", "spec_text": spec}
    began = time.perf_counter()
    response = requests.post(f"{base}/api/v1/runs", json=body, timeout=300,
                             headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    elapsed = time.perf_counter() - began
    try:
        error = response.json()["error"]
        fields = error.get("fields") or {}
        message = (fields.get("spec_text") or [error["message"]])[0]
    except (ValueError, KeyError):
        message = response.text[:100]
    return response.status_code, elapsed, message.splitlines()[0][:90]


def huge_body(port: int, token: str, size: int) -> tuple[int, float, str]:
    """Announce `size` bytes, send 64 KiB of them, read the answer."""
    began = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
        conn.sendall(
            f"POST /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {size}\r\n\r\n".encode()
        )
        try:
            conn.sendall(b" " * 65536)
        except OSError:
            pass
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
    elapsed = time.perf_counter() - began
    status = int(answer.split(b" ", 2)[1])
    body = answer.split(b"\r\n\r\n", 1)[1]
    return status, elapsed, json.loads(body)["error"]["message"][:90]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8611)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/13")
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "DEBUG": "0", "SECRET_KEY": "bench-only", "REDIS_URL": args.redis_url,
               "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3", "LINT_SLOT_DIR": f"{tmp}/slots",
               "SESSION_COOKIE_SECURE": "0", "CSRF_COOKIE_SECURE": "0", "LINT_CONCURRENCY": "2",
               "RATE_LIMIT_UPLOADS_PER_IP": "off"}  # fmt: skip
        env.pop("DJANGO_SETTINGS_MODULE", None)
        token = prepare(env)
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{args.port}"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        try:
            wait_for_server(base, server)
            run_cases(base, args.port, token)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait()


def run_cases(base: str, port: int, token: str) -> None:
    print(f"{'case':48} {'bytes':>9} {'status':>6} {'upload s':>8} {'probe s':>7}  answer")
    worst = 0.0
    for name, build in CASES.items():
        spec = build()
        with Probe(base) as probe:
            status, elapsed, message = upload(base, token, spec)
        worst = max(worst, elapsed)
        print(f"{name:48} {len(spec.encode()):>9,} {status:>6} {elapsed:>8.2f} "
              f"{probe.worst:>7.2f}  {message}")  # fmt: skip
    size = 100 * 1024 * 1024
    with Probe(base) as probe:
        status, elapsed, message = huge_body(port, token, size)
    print(
        f"{'100 MB body':48} {size:>9,} {status:>6} {elapsed:>8.2f} {probe.worst:>7.2f}  {message}"
    )
    worst = max(worst, elapsed)
    with Probe(base) as probe, ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: upload(base, token, ordinary()), range(6)))
    statuses = sorted(r[0] for r in results)
    slowest = max(r[1] for r in results)
    print(f"{'6 ordinary uploads at once (2 check slots)':48} {'':>9} "
          f"{'/'.join(map(str, statuses)):>6} {slowest:>8.2f} {probe.worst:>7.2f}")  # fmt: skip
    print(f"\nworst single-upload request time: {worst:.2f} s (goal <= 2 s)")


if __name__ == "__main__":
    main()
