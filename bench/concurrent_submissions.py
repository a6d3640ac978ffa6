"""N accounts submit a spec at the same moment against a real web server; prints how many were
accepted, how long the uploads took, and whether every one is stored and queued.

    .venv/bin/python bench/concurrent_submissions.py [--users 50] [--port 8311]
        [--redis-url redis://127.0.0.1:6379/11]

Starts `manage.py runserver` (threaded) on a throwaway SQLite file, with the default quotas
and rate limits; each user comes from its own address through X-Forwarded-For (the server trusts
one proxy) and connects before the common start, since runserver's listen backlog of 10 would
otherwise be what is measured. Half the users sign in and use the form, half use the JSON API
with a token. The upload lint runs the real SANY. Jobs go to the given Redis database, which must
be empty and is flushed at the end; no worker consumes them, so the queue can be counted.
"""

import argparse
import os
import re
import signal
import statistics
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
REFERENCE = ROOT / "tasks_data" / "spin" / "reference" / "spin.tla"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def spec_of(n: int) -> str:
    header, rest = REFERENCE.read_text().split("\n", 1)
    return f"{header}\n\\* submitted by user {n}\n{rest}"


def manage(env, *args) -> str:
    command = [sys.executable, "manage.py", *args]
    return subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True,
                          text=True).stdout  # fmt: skip


def prepare(env, users: int) -> dict[int, str]:
    """Migrate, add the spin task, and make the users; returns the API users' tokens."""
    manage(env, "migrate", "--noinput")
    script = f"""
from evaluation.inputs.contracts import load_contract
from leaderboard.tasks.importing import sync_task
from django.contrib.auth import get_user_model
from leaderboard.accounts.tokens import create_token
sync_task(load_contract("spin"))
for n in range({users}):
    user = get_user_model().objects.create_user(f"user{{n}}", password="a long pass phrase")
    if n % 2:
        print(n, create_token(user, "bench")[0])
"""
    out = manage(env, "shell", "-c", script)
    found = re.findall(r"^(\d+) (smb_\S+)$", out, re.MULTILINE)
    return {int(n): token for n, token in found}


def form_user(base, n, start):
    session = requests.Session()
    session.headers["X-Forwarded-For"] = f"10.2.{n // 250}.{n % 250}"
    token = CSRF.search(session.get(f"{base}/accounts/login/").text).group(1)
    session.post(f"{base}/accounts/login/", {"username": f"user{n}",
                 "password": "a long pass phrase", "csrfmiddlewaretoken": token})  # fmt: skip
    token = CSRF.search(session.get(f"{base}/submit/").text).group(1)
    data = {"task": "spin", "new_model_name": f"Model {n}", "new_model_organisation": "Bench",
            "spec_text": spec_of(n), "csrfmiddlewaretoken": token}  # fmt: skip
    start.wait()
    began = time.perf_counter()
    response = session.post(f"{base}/submit/", data, allow_redirects=False, timeout=300)
    return response.status_code, began, time.perf_counter()


def api_user(base, n, token, start):
    body = {"task": "spin", "new_model_name": f"Model {n}", "new_model_organisation": "Bench",
            "spec_text": spec_of(n)}  # fmt: skip
    session = requests.Session()
    session.headers.update(
        {"Authorization": f"Bearer {token}", "X-Forwarded-For": f"10.2.{n // 250}.{n % 250}"}
    )
    # Connect before the start, like the form users: runserver's listen backlog is 10, and 25
    # new connections at one instant measure that, not the site.
    session.get(f"{base}/methodology/")
    start.wait()
    began = time.perf_counter()
    response = session.post(f"{base}/api/v1/runs", json=body, timeout=300)
    return response.status_code, began, time.perf_counter()


def outcome(future) -> tuple:
    """(status code or the client-side error, began, ended)."""
    try:
        return future.result()
    except requests.RequestException as error:
        print(f"  client error: {error!r}")
        now = time.perf_counter()
        return type(error).__name__, now, now


def count_rows(env) -> tuple[int, int]:
    script = """
import django_rq
from leaderboard.models import Run
print(Run.objects.filter(submitter__username__startswith="user").count(),
      len(django_rq.get_queue("evaluation").job_ids))
"""
    runs, jobs = re.findall(r"^(\d+) (\d+)$", manage(env, "shell", "-c", script), re.MULTILINE)[-1]
    return int(runs), int(jobs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--port", type=int, default=8311)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/11")
    parser.add_argument("--server-log", type=Path, help="keep the web server's log here")
    args = parser.parse_args()

    from redis import Redis

    redis = Redis.from_url(args.redis_url)
    if redis.dbsize():
        raise SystemExit(f"{args.redis_url} is not empty: pick a free Redis database")
    workdir = tempfile.mkdtemp(prefix="smb-bench-")
    env = {**os.environ, "DEBUG": "1", "DATABASE_URL": f"sqlite:///{workdir}/bench.sqlite3",
           "REDIS_URL": args.redis_url, "RATE_LIMIT_PROXY_COUNT": "1",
           "DJANGO_SETTINGS_MODULE": "config.settings"}  # fmt: skip
    server = None
    try:
        tokens = prepare(env, args.users)
        base = f"http://127.0.0.1:{args.port}"
        server_log = open(Path(workdir) / "server.log", "w")  # noqa: SIM115
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{args.port}"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=server_log,
            start_new_session=True,
        )  # fmt: skip
        wait_for_server(base, server)
        start = threading.Barrier(args.users)
        with ThreadPoolExecutor(max_workers=args.users) as pool:
            futures = [
                pool.submit(api_user, base, n, tokens[n], start)
                if n in tokens
                else pool.submit(form_user, base, n, start)
                for n in range(args.users)
            ]
            results = [outcome(f) for f in futures]
        wall = max(end for _, _, end in results) - min(began for _, began, _ in results)
        codes = [code for code, _, _ in results]
        times = sorted(end - began for _, began, end in results)
        accepted = sum(code in (201, 302) for code in codes)
        log = (Path(workdir) / "server.log").read_text()
        errors = [line for line in log.splitlines() if "Error" in line or "Traceback" in line]
        runs, jobs = count_rows(env)
        print(f"{args.users} users at once ({len(tokens)} API, {args.users - len(tokens)} form), "
              f"real SANY lint, runserver on SQLite:")  # fmt: skip
        print(f"  accepted {accepted}/{args.users}; status codes "
              f"{ {c: codes.count(c) for c in sorted(set(codes), key=str)} }")  # fmt: skip
        print(f"  upload time: median {statistics.median(times):.2f} s, "
              f"p90 {times[int(0.9 * (len(times) - 1))]:.2f} s, max {times[-1]:.2f} s; "
              f"first upload sent to last answer {wall:.2f} s")  # fmt: skip
        print(f"  stored runs {runs}, queued jobs {jobs}, lost {accepted - min(runs, jobs)}")
        print(
            f"  server log: {len(errors)} error lines" + "".join(f"\n    {e}" for e in errors[:5])
        )
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        redis.flushdb()
        if args.server_log and (Path(workdir) / "server.log").exists():
            args.server_log.write_text((Path(workdir) / "server.log").read_text())
        for path in Path(workdir).iterdir():
            path.unlink()
        os.rmdir(workdir)


if __name__ == "__main__":
    main()
