"""Fault trials under docker compose (docs/decisions/0003-no-run-left-behind.md): the whole stack of
compose.yaml (web, worker, reaper, db, redis) on this machine's engine, the spin reference
submitted through the web service's API, and the worker struck while its scorer container runs.

    .venv/bin/python bench/compose_trials.py [--trials 3] [--kinds compose-horse,compose-worker]
        [--web-port 18380] [--postgres-port 18381]

Kinds: `compose-horse` SIGKILLs rq's work-horse inside the worker container (the worker's main
process sees it die and fails the job; the reaper re-queues the run and removes the orphaned
scorer container); `compose-worker` SIGKILLs the worker container's main process (its pid 1,
from the host: the container ends with the horse in it, compose's `restart: unless-stopped`
starts it again, and the reaper re-queues the run once rq's heartbeat of the job expires).
`docker kill` would not do: the engine counts it as a manual stop and restarts nothing.

Where the official db and redis images cannot be pulled, the stand-ins of
`bin/build-images postgres redis` are used (DB_IMAGE and REDIS_IMAGE override). The stack is a
compose project of its own (`sysmobench-compose-trials`), with web on 127.0.0.1:WEB_PORT and
PostgreSQL published on 127.0.0.1:POSTGRES_PORT (an override file beside the bench's temporary
folder; the bench reads the runs there), never the machine's 5432/6379/8000; the scorer inputs
go to a host folder of its own, and the reaper passes every 5 s. An undisturbed submission gives
the scores every trial must end with. The table is bench/kill_trials.py's (judged by
tests/kill_trials.py: lost, stuck within 10 minutes, scored twice, wrong final score, could not
be scored), with the scorer containers left. Whatever happens the stack is taken down with its
volumes (`down -v`) and its leftover scorer containers are removed. Needs the Docker engine,
`docker compose` (or docker-compose v1), and the images of `bin/build-images`.
"""

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

# Importing kill_trials (and with it _timing) puts the repository on sys.path and selects the
# test settings; the table's printing is its own.
from kill_trials import print_header, print_row, print_total

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "sysmobench-compose-trials"
KINDS = ("compose-horse", "compose-worker")
SPEC = ROOT / "tasks_data" / "spin" / "reference" / "spin.tla"
STAND_INS = {
    "DB_IMAGE": "sysmobench/postgres-stand-in:latest",
    "REDIS_IMAGE": "sysmobench/redis-stand-in:latest",
}
REAP_EVERY_SECONDS = 5
TRIAL_TIMEOUT = 600  # a run not ended by then is stuck
STARTUP_TIMEOUT = 900  # migrations and import_benchmark included
# Settings of compose.yaml the bench sets itself; a developer's own values must not leak in.
PASSED_THROUGH = {"WEB_IMAGE", "SCORER_DOCKER_IMAGE", "DOCKER_HOST"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--web-port", type=int, default=18380)
    parser.add_argument("--postgres-port", type=int, default=18381)
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    unknown = set(kinds) - set(KINDS)
    if unknown:
        sys.exit(f"unknown kinds {sorted(unknown)} (known: {', '.join(KINDS)})")
    compose = compose_command()
    images = {**STAND_INS, **{k: os.environ[k] for k in STAND_INS if os.environ.get(k)}}
    missing_why = missing(images)
    if missing_why:
        sys.exit(missing_why)
    # A SIGTERM (a `kill` of the bench) takes the stack down too, as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped by SIGTERM"))
    folder = Path(tempfile.mkdtemp(prefix="sysmobench-compose-trials-"))
    stack = Stack(compose, folder, images, args.web_port, args.postgres_port)
    try:
        stack.up()
        run_all(stack, kinds, args.trials)
    finally:
        stack.down()
        shutil.rmtree(folder, ignore_errors=True)


def compose_command() -> list[str]:
    """`docker compose` (v2) where the plugin is there, else docker-compose (v1)."""
    plugin = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
    if plugin.returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    sys.exit("neither `docker compose` nor docker-compose is installed")


def missing(images: dict[str, str]) -> str:
    """Why the trials cannot run here ('' when they can)."""
    if subprocess.run(["docker", "info"], capture_output=True, check=False).returncode != 0:
        return "the Docker engine does not answer (docker info failed)"
    wanted = [
        os.environ.get("WEB_IMAGE", "sysmobench-web:latest"),
        os.environ.get("SCORER_DOCKER_IMAGE", "sysmobench-scorer:latest"),
        *images.values(),
    ]
    absent = [
        image
        for image in wanted
        if subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode
    ]
    if absent:
        return f"images missing: {', '.join(absent)} (bin/build-images scorer web postgres redis)"
    return ""


class Stack:
    """The compose project: its settings, its commands, its containers."""

    def __init__(self, compose, folder: Path, images, web_port: int, postgres_port: int):
        self.folder = folder
        self.inputs = folder / "scorer-inputs"
        self.inputs.mkdir()
        self.web = f"http://127.0.0.1:{web_port}"
        self.password = secrets.token_hex(12)
        self.database_url = (
            f"postgres://sysmobench:{self.password}@127.0.0.1:{postgres_port}/sysmobench"
        )
        override = folder / "compose.trials.yaml"
        # The bench reads the runs from PostgreSQL: published on the loopback only.
        override.write_text(f'services:\n  db:\n    ports: ["127.0.0.1:{postgres_port}:5432"]\n')
        env_file = folder / "empty.env"  # not the repository's .env, whatever it says
        env_file.write_text("")
        self.command = [*compose, "-p", PROJECT, "--env-file", str(env_file),
                        "-f", str(ROOT / "compose.yaml"), "-f", str(override)]  # fmt: skip
        interpolated = set(re.findall(r"\$\{([A-Z_]+)", (ROOT / "compose.yaml").read_text()))
        self.env = {k: v for k, v in os.environ.items() if k not in interpolated - PASSED_THROUGH}
        self.env.update(
            images,
            SECRET_KEY=secrets.token_urlsafe(40),
            POSTGRES_PASSWORD=self.password,
            ALLOWED_HOSTS="localhost,127.0.0.1",
            WEB_PORT=f"127.0.0.1:{web_port}",
            WEB_WORKERS="2",
            SESSION_COOKIE_SECURE="0",
            CSRF_COOKIE_SECURE="0",
            SCORER_BACKEND="docker",
            SCORER_DOCKER_INPUT_DIR=str(self.inputs),
            REAP_EVERY_SECONDS=str(REAP_EVERY_SECONDS),
        )
        self.log = folder / "compose.log"
        self.site = ""  # the worker's site tag (leaderboard.scoring.backends.site_tag)
        self.hostnames: set[str] = set()  # the worker containers' host names (container labels)
        self._engine = None

    def run(self, *args: str, check: bool = True, stdin: str | None = None, timeout: float = 600):
        result = subprocess.run([*self.command, *args], env=self.env, input=stdin, text=True,
                                capture_output=True, timeout=timeout, check=False)  # fmt: skip
        with open(self.log, "a") as out:
            out.write(f"$ {' '.join(args)}\n{result.stdout}{result.stderr}\n")
        if check and result.returncode != 0:
            raise RuntimeError(f"compose {' '.join(args)} failed:\n{result.stderr[-3000:]}")
        return result

    def up(self) -> None:
        started = time.monotonic()
        tool = " ".join(self.command[: self.command.index("-p")])
        print(f"{tool}: project {PROJECT}, db {self.env['DB_IMAGE']}, "
              f"redis {self.env['REDIS_IMAGE']}", flush=True)  # fmt: skip
        try:
            self.run("up", "-d", timeout=STARTUP_TIMEOUT)
        except RuntimeError:
            print(self.run("logs", "--no-color", "--tail", "40", check=False).stdout[-4000:])
            raise
        self.wait_for_web(started + STARTUP_TIMEOUT)
        print(f"stack up in {time.monotonic() - started:.0f} s (web {self.web})")
        manage = ("exec", "-T", "web", "python", "manage.py")
        self.run(*manage, "create_user", "bench", "--password-stdin",
                 stdin=secrets.token_urlsafe(24) + "\n")  # fmt: skip
        self.token = self.run(*manage, "create_api_token", "bench", "trials").stdout.split()[-1]
        tag = "from leaderboard.scoring.backends import site_tag; print(site_tag())"
        shell = self.run("exec", "-T", "worker", "python", "manage.py", "shell", "-c", tag)
        self.site = shell.stdout.split()[-1]
        os.environ["DATABASE_URL"] = self.database_url
        import django

        django.setup()

    def wait_for_web(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.web + "/", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(2)
        raise RuntimeError(f"the web service did not answer on {self.web}")

    def submit(self, model: str) -> int:
        body = {"task": "spin", "new_model_name": model, "new_model_organisation": "bench",
                "new_model_kind": "agent", "spec_text": SPEC.read_text()}  # fmt: skip
        request = urllib.request.Request(
            self.web + "/api/v1/runs",
            data=json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return int(json.load(answer)["id"])
        except urllib.error.HTTPError as refused:
            said = refused.read().decode(errors="replace")[-1500:]
            logs = self.run("logs", "--no-color", "--tail", "30", "web", check=False).stdout[-3000:]
            raise RuntimeError(
                f"the submission got {refused.code}: {said}\nweb's last lines:\n{logs}"
            ) from refused

    @property
    def engine(self):
        """A Docker SDK client, made once."""
        if self._engine is None:
            import docker

            self._engine = docker.from_env(timeout=120)
        return self._engine

    def worker(self) -> dict | None:
        """The worker container's inspection (fresh), or None."""
        from docker.errors import NotFound

        labels = [f"com.docker.compose.project={PROJECT}", "com.docker.compose.service=worker"]
        for entry in self.engine.api.containers(all=True, filters={"label": labels}):
            try:
                found = self.engine.api.inspect_container(entry["Id"])
            except NotFound:  # replaced meanwhile
                continue
            self.hostnames.add(found["Config"]["Hostname"])
            return found
        return None

    def scorer_containers(self, run_pk: int | None = None) -> list[dict]:
        """This stack's scorer containers (its site tag, started by its worker), of one run if
        given: each with its Id, Labels and State. Listed in one call, none inspected: the worker
        and the reaper may remove one at any moment."""
        from evaluation.backends import container

        prefix = f"{self.site}-{run_pk}." if run_pk is not None else f"{self.site}-"
        listed = self.engine.api.containers(all=True, filters={"label": f"{container.LABEL}=1"})
        return [
            c
            for c in listed
            if (c.get("Labels") or {}).get(container.RUN_LABEL, "").startswith(prefix)
            and (c.get("Labels") or {}).get(container.WORKER_LABEL, "").rpartition(":")[0]
            in self.hostnames
        ]

    def remove(self, containers: list[dict]) -> None:
        from docker.errors import NotFound

        for leftover in containers:
            try:
                self.engine.api.remove_container(leftover["Id"], force=True)
            except NotFound:
                pass

    def down(self) -> None:
        if self.site:
            self.worker()
            left = self.scorer_containers()
            self.remove(left)
            print(f"scorer containers of the stack left at the end: {len(left)} (removed)")
        self.run("down", "-v", "--remove-orphans", "--timeout", "20", check=False)
        project = subprocess.run(
            ["docker", "ps", "-aq", "--filter", f"label=com.docker.compose.project={PROJECT}"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        print(f"stack down (-v): {len(project.stdout.split())} container(s) of it remain")
        if self._engine is not None:
            self._engine.close()


def run_all(stack: Stack, kinds: list[str], trials: int) -> None:
    from tests.kill_trials import BASELINE

    expected = trial(stack, BASELINE, 0)
    if expected.status != "finished":
        raise RuntimeError(f"the undisturbed run did not finish: {expected}")
    print(f"undisturbed: overall {expected.overall}, phases {expected.phase_scores}, "
          f"{expected.seconds:.0f} s")  # fmt: skip
    results = {kind: [] for kind in kinds}
    for kind in kinds:
        for number in range(trials):
            results[kind].append(trial(stack, kind, number))
            done = results[kind][-1]
            crowd = f", work-horses at once: {done.crowd}" if done.crowd else ""
            print(f"  {kind} {number}: {done.status}, attempt {done.attempts}, overall "
                  f"{done.overall}, {done.seconds:.0f} s, containers left "
                  f"{done.containers_left}{crowd}", flush=True)  # fmt: skip
    print_header()
    totals = Counter()
    for kind in kinds:
        totals.update(print_row(kind, results[kind], expected, containers=True))
    print_total(totals)


def trial(stack: Stack, kind: str, number: int):
    """Submit the spin reference, strike the worker as `kind` says once P1 is stored and the
    run's scorer container runs, and wait for the run's final state; judged as
    tests/kill_trials.py judges a trial."""
    from leaderboard.models import PhaseResult, Run
    from tests.kill_trials import BASELINE, Trial, work_horses

    started = time.monotonic()
    deadline = started + TRIAL_TIMEOUT
    run = Run.objects.get(pk=stack.submit(f"Compose trial {kind} {number}"))
    killed: list[int] = []
    restarts_before = None
    if kind != BASELINE:
        while True:
            run.refresh_from_db()
            label = f"{stack.site}-{run.pk}.{run.attempts}"
            running = [c for c in stack.scorer_containers(run.pk) if c["State"] == "running"]
            if (
                run.status == Run.Status.RUNNING
                and PhaseResult.objects.filter(run=run).exists()
                and any(c["Labels"].get("org.sysmobench.run") == label for c in running)
            ):
                break
            if run.is_terminal or time.monotonic() > deadline:
                raise RuntimeError(f"{kind} {number}: no scorer container to strike ({run.status})")
            time.sleep(0.2)
        worker = stack.worker()
        restarts_before = worker["RestartCount"]
        main = worker["State"]["Pid"]
        killed = work_horses({main}) if kind == "compose-horse" else [main]
        assert len(killed) == 1, f"{kind}: expected one process to kill, found {killed}"
        os.kill(killed[0], signal.SIGKILL)

    most_horses, crowd, stuck = 1, [], True
    while time.monotonic() < deadline:
        worker = stack.worker()
        main = worker["State"]["Pid"] if worker is not None else 0
        horses = work_horses({main}) if main else []
        if len(horses) > most_horses:
            most_horses, crowd = len(horses), [f"pid {pid}" for pid in horses]
        run.refresh_from_db()
        if run.is_terminal and not horses:
            stuck = False
            break
        time.sleep(0.5)
    seconds = time.monotonic() - started
    # The reaper removes an orphaned container on its next pass: one pass of grace, then count.
    grace = time.monotonic() + REAP_EVERY_SECONDS + 5
    while stack.scorer_containers(run.pk) and time.monotonic() < grace:
        time.sleep(0.5)
    left = stack.scorer_containers(run.pk)
    stack.remove(left)
    if restarts_before is not None and kind == "compose-worker":
        restarts = stack.worker()["RestartCount"] - restarts_before
        if restarts != 1:
            print(f"  {kind} {number}: the worker container restarted {restarts} time(s)")
    late = 0
    if run.finished_at is not None:
        late = PhaseResult.objects.filter(run=run, finished_at__gt=run.finished_at).count()
    return Trial(
        kind=kind,
        status=run.status,
        attempts=run.attempts,
        most_horses_at_once=most_horses,
        late_rows=late,
        jvms_left=0,  # the JVMs ran in the scorer containers, counted as containers
        jvms_outliving_horse=0,
        seconds=round(seconds, 1),
        killed=killed,
        crowd=crowd,
        stuck=stuck,
        containers_left=len(left),
        failure_reason=run.failure_reason,
        overall=run.overall,
        phase_scores=dict(run.phase_results.values_list("phase", "score")),
    )


if __name__ == "__main__":
    main()
