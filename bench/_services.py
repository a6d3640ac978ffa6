"""Private Redis and PostgreSQL servers that a bench starts, restarts and stops itself, on ports
of its own and data directories under a temporary folder: never the machine's servers.

PostgreSQL refuses to run as root, so as root its commands run as the `postgres` user
(`runuser`), which then owns the data directory.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path


def _free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def _wait_until(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} within {seconds} s")
        time.sleep(0.1)


class PrivateRedis:
    def __init__(self, port: int, folder: Path) -> None:
        if not _free(port):
            raise SystemExit(f"port {port} is taken: choose another with --redis-port")
        self.port, self.folder = port, folder / "redis"
        self.folder.mkdir(parents=True)
        self.proc: subprocess.Popen | None = None
        self.url = f"redis://127.0.0.1:{port}/0"

    def start(self) -> None:
        # No persistence: a restart loses every queue, job and worker key, the worst case.
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--dir", str(self.folder), "--save", "", "--appendonly", "no"]
        with open(self.folder / "redis.log", "ab") as log:
            self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        _wait_until(lambda: not _free(self.port), 20, "Redis did not listen")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def restart(self, down_seconds: float = 2.0) -> None:
        self.stop()
        time.sleep(down_seconds)
        self.start()


class PrivatePostgres:
    def __init__(self, port: int, folder: Path) -> None:
        if not _free(port):
            raise SystemExit(f"port {port} is taken: choose another with --postgres-port")
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        if not found:
            raise SystemExit("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin)")
        self.bin = Path(found[-1]).parent
        self.port, self.data = port, folder / "pgdata"
        self.url = f"postgres://postgres@127.0.0.1:{port}/faultbench"
        self.data.mkdir(parents=True)
        if os.geteuid() == 0:
            folder.parent.chmod(0o755)  # a temporary directory is the owner's only: let it in
            shutil.chown(folder, "postgres")
            shutil.chown(self.data, "postgres")
        self._as_postgres(
            [str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust"]
        )

    def _as_postgres(self, command: list[str]) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        done = subprocess.run(prefix + command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {done.stderr.strip() or done.stdout[-500:]}")

    def _ctl(self, *action: str) -> None:
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1"
        command = [str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.data / "log")]
        self._as_postgres(command + ["-w", "-o", options, *action])

    def start(self) -> None:
        self._ctl("start")

    def stop(self) -> None:
        # fast: every open connection is cut, as a crash or a failover would.
        self._ctl("-m", "fast", "stop")

    def restart(self, down_seconds: float = 2.0) -> None:
        self.stop()
        time.sleep(down_seconds)
        self.start()
