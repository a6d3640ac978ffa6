"""Score one run in its own container (the `docker` scorer backend;
docs/decisions/0034-scorer-container.md).

One container per run, not per TLC call: a container start costs 1-2 s, a scoring starts ~10
JVMs. Inside, the image's entry point is `python -m evaluation score` (evaluation/cli.py) with the
usual per-call sandbox; the container adds, around the whole run:

- no network, a read-only root file system, a size-capped tmpfs on /tmp for scratch;
- memory, CPU and pids limits: memory from the contract's largest heap budget plus the tmpfs and
  a fixed overhead, the wall clock from the sum of the phase budgets (`limits_for`);
- a non-root user, every capability dropped, `no-new-privileges`, an init process;
- the inputs (spec, adapter, cfg, the task's contract and the canonical windows file) written by
  us into a fresh directory that is mounted read-only.

The result is the JSON document on stdout; each phase's outcome arrives on stderr as it finishes
(`--progress json`), so the run page stays live. The container is removed on every exit path;
if the worker itself dies, `timeout` inside the container still ends it at its deadline and
`reap_containers` removes it by label (with input directories a dead worker left behind).

Input directories are created under `ContainerSettings.input_root`, which must be the same path
for the worker and the Docker engine (bind mounts name host paths): when the worker runs in a
container, mount that host directory into it at the same path (compose.yaml does).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluation.backends.stamp import ImageMismatch, image_mismatch, running_code
from evaluation.cli import (
    EXIT_BAD_INPUT,
    EXIT_INFRASTRUCTURE,
    EXIT_INTERNAL,
    PROGRESS_EVENT,
    write_windows,
)
from evaluation.inputs.contracts import Contract
from evaluation.pipeline import ScoreReport
from evaluation.results import InfrastructureFailure, PhaseOutcome
from evaluation.scoring import PHASES
from evaluation.windows.window import Window

if TYPE_CHECKING:  # the Docker SDK is imported when a container is needed (the site only)
    from docker import DockerClient
    from docker.models.containers import Container

LABEL = "org.sysmobench.scorer"
RUN_LABEL = "org.sysmobench.run"
DEADLINE_LABEL = "org.sysmobench.deadline"
WORKER_LABEL = "org.sysmobench.worker"
INPUT_PREFIX = "scorer-in-"
IN = "/in"
USER = "10001:10001"
# The Python scorer, the JVM's own non-heap memory (metaspace, code cache, thread stacks) and the
# page cache of the jar: measured ~350 MiB peak for spin; the rest is headroom.
OVERHEAD_MB = 640
STDERR_TAIL_LINES = 40
KILLED = 137


class ContainerError(RuntimeError):
    """The container could not score the run; the message says why (for the submitter)."""


class ContainerTimeout(ContainerError):
    """The run outlived its total wall-clock budget and its container was killed."""


class StaleScorerImage(ContainerError):
    """The image was built from other code than the worker runs (`stamp.image_mismatch`): every
    run would fail alike until it is rebuilt, so it is the machine's failure, never the spec's
    score, and no attempt is worth repeating before an operator rebuilds the image."""

    def __init__(self, mismatch: ImageMismatch) -> None:
        super().__init__(mismatch.advice())
        self.mismatch = mismatch


@dataclass(frozen=True)
class ContainerSettings:
    image: str = "sysmobench-scorer:latest"
    cpus: float = 1.0
    pids: int = 256
    tmpfs_mb: int = 768
    input_root: str | None = None
    # Added to the sum of the phase budgets: container start, Python start, the report.
    margin_seconds: int = 60
    # An operator's cap on any one container's wall clock, whatever the contract says (0: none).
    max_seconds: int = 0


@dataclass(frozen=True)
class Limits:
    wall_seconds: int
    memory_mb: int
    cpus: float
    pids: int
    tmpfs_mb: int


def limits_for(contract: Contract, settings: ContainerSettings) -> Limits:
    """The container's limits from the contract's budgets (and the operator's settings)."""
    wall = int(contract.budgets.worst_case_seconds(len(contract.invariants)))
    wall += settings.margin_seconds
    if settings.max_seconds:
        wall = min(wall, settings.max_seconds)
    heap = max(int(contract.budget(p, "heap_mb")) for p in PHASES)
    return Limits(
        wall_seconds=wall,
        memory_mb=heap + settings.tmpfs_mb + OVERHEAD_MB,
        cpus=settings.cpus,
        pids=settings.pids,
        tmpfs_mb=settings.tmpfs_mb,
    )


def container_options(limits: Limits) -> dict[str, Any]:
    """Keyword arguments for `client.containers.create`: the isolation every run gets."""
    return {
        "user": USER,
        "network_mode": "none",
        "read_only": True,
        "tmpfs": {"/tmp": f"rw,nosuid,nodev,size={limits.tmpfs_mb}m,mode=1777"},
        "mem_limit": f"{limits.memory_mb}m",
        "memswap_limit": f"{limits.memory_mb}m",
        "nano_cpus": int(limits.cpus * 1e9),
        "pids_limit": limits.pids,
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "init": True,
        "ipc_mode": "none",
        "environment": {"HOME": "/tmp", "TMPDIR": "/tmp"},
        "stdin_open": False,
        "tty": False,
        "detach": True,
    }


def docker_client() -> DockerClient:
    """A client for the engine named by DOCKER_HOST (default: the local socket)."""
    import docker
    from docker.errors import DockerException

    try:
        client = docker.from_env(timeout=120)
        client.ping()
    except DockerException as exc:
        raise ContainerError(f"the Docker engine does not answer ({exc})") from exc
    return client


def image_identity(client: DockerClient, image: str) -> dict[str, Any]:
    """What the fingerprint records of the image: its name, its content id and repo digests.
    Raises StaleScorerImage when the image was not built from the code running here."""
    from docker.errors import DockerException, ImageNotFound

    try:
        found = client.images.get(image)
    except ImageNotFound as exc:
        raise ContainerError(
            f"the scorer image {image!r} is not on this engine; build it with bin/build-images"
        ) from exc
    except DockerException as exc:
        raise ContainerError(f"cannot inspect the scorer image {image!r}: {exc}") from exc
    mismatch = image_mismatch(image, found.labels, running_code())
    if mismatch is not None:
        raise StaleScorerImage(mismatch)
    return {
        "scorer_image": image,
        "scorer_image_id": found.id,
        "scorer_image_digests": sorted(found.attrs.get("RepoDigests") or []),
    }


# ----------------------------------------------------------------------------- one run


def score_in_container(
    spec_text: str,
    contract: Contract,
    windows: list[Window],
    *,
    adapter_text: str | None = None,
    cfg_text: str | None = None,
    settings: ContainerSettings | None = None,
    on_phase: Callable[[PhaseOutcome], None] | None = None,
    run_label: str = "",
    client: DockerClient | None = None,
    heldout_windows: list[Window] | None = None,
) -> ScoreReport:
    """Score a spec in a fresh container; the same report `pipeline.score_spec` gives, with the
    backend and the image identity added to the fingerprint."""
    settings = settings or ContainerSettings()
    client = client or docker_client()
    identity = image_identity(client, settings.image)
    limits = limits_for(contract, settings)
    with input_dir(settings.input_root) as folder:
        argv = write_inputs(
            folder, spec_text, contract, windows, adapter_text, cfg_text, heldout_windows
        )
        result = run_container(
            client, settings.image, argv, folder, limits, run_label, on_line=_phase_sink(on_phase)
        )
    report = read_report(result)
    report.fingerprint.update({"scorer_backend": "docker", **identity})
    return report


@dataclass
class ContainerResult:
    exit_code: int
    stdout: bytes
    stderr_tail: list[str]
    timed_out: bool
    oom_killed: bool
    seconds: float


def run_container(
    client: DockerClient,
    image: str,
    argv: list[str],
    folder: Path,
    limits: Limits,
    run_label: str = "",
    on_line: Callable[[str], bool] | None = None,
    entrypoint: list[str] | None = None,
) -> ContainerResult:
    """Run `argv` in a container of `image` with `folder` mounted read-only at /in; the
    container is killed at `limits.wall_seconds` and removed whatever happens."""
    from docker.errors import DockerException

    # `timeout` inside ends the run at its deadline even when this worker is gone.
    command = ["timeout", "--signal=KILL", str(limits.wall_seconds)]
    command += entrypoint or ["python", "-m", "evaluation"]
    deadline = time.time() + limits.wall_seconds
    labels = {
        LABEL: "1",
        RUN_LABEL: run_label,
        DEADLINE_LABEL: str(int(deadline) + 30),
        WORKER_LABEL: f"{socket.gethostname()}:{os.getpid()}",
    }
    started = time.monotonic()
    container = None
    try:
        container = client.containers.create(
            image,
            entrypoint=command,
            command=argv,
            labels=labels,
            volumes={str(folder): {"bind": IN, "mode": "ro"}},
            **container_options(limits),
        )
        killer = _Killer(container, limits.wall_seconds + 10)
        container.start()
        killer.start()
        tail = _follow_stderr(container, on_line)
        status = container.wait(timeout=limits.wall_seconds + 60)
        killer.cancel()
        assert container.id is not None  # an id is what `create` returns
        state = client.api.inspect_container(container.id)["State"]
        stdout = container.logs(stdout=True, stderr=False)
        seconds = time.monotonic() - started
        code = int(status.get("StatusCode", -1))
        return ContainerResult(
            exit_code=code,
            stdout=stdout,
            stderr_tail=list(tail),
            timed_out=killer.fired or (code == KILLED and seconds >= limits.wall_seconds - 1),
            oom_killed=bool(state.get("OOMKilled")),
            seconds=seconds,
        )
    except DockerException as exc:
        raise ContainerError(f"the scoring container failed to run: {exc}") from exc
    finally:
        if container is not None:
            _remove(container)


class _Killer:
    """Kills the container when the worker-side deadline passes (the in-container `timeout`
    normally ends it first; this covers a container that does not start its command)."""

    def __init__(self, container: Container, seconds: float) -> None:
        self.fired = False
        self._timer = threading.Timer(seconds, self._kill, args=(container,))
        self._timer.daemon = True

    def start(self) -> None:
        self._timer.start()

    def cancel(self) -> None:
        self._timer.cancel()

    def _kill(self, container: Container) -> None:
        self.fired = True
        try:
            container.kill()
        except Exception:  # already gone: nothing to kill
            pass


def _follow_stderr(container: Container, on_line: Callable[[str], bool] | None) -> deque[str]:
    """Feed each stderr line to `on_line` while the container runs (True: it was a progress
    event); keep the last lines that were not (tracebacks, the CLI's error message)."""
    tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
    for line in _lines(container.logs(stdout=False, stderr=True, stream=True, follow=True)):
        if on_line is None or not on_line(line):
            tail.append(line)
    return tail


def _lines(chunks: Iterator[bytes]) -> Iterator[str]:
    pending = b""
    for chunk in chunks:
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for raw in complete:
            yield raw.decode("utf-8", "replace")
    if pending:
        yield pending.decode("utf-8", "replace")


def _phase_sink(on_phase: Callable[[PhaseOutcome], None] | None) -> Callable[[str], bool]:
    """A stderr line handler: True when the line was a phase event (and was delivered)."""

    def handle(line: str) -> bool:
        if not line.startswith('{"event"'):
            return False
        try:
            event = json.loads(line)
        except ValueError:
            return False
        if event.get("event") != PROGRESS_EVENT:
            return False
        if on_phase is not None:
            on_phase(PhaseOutcome.from_dict(event["outcome"]))
        return True

    return handle


def _remove(container: Container) -> None:
    try:
        container.remove(force=True)
    except Exception:  # the reaper removes it by label if the engine refused now
        pass


def read_report(result: ContainerResult) -> ScoreReport:
    """The report a finished container printed, or the reason it has none."""
    said = "\n".join(result.stderr_tail[-8:]).strip()
    if result.timed_out:
        raise ContainerTimeout(
            f"scoring ran past the run's total time budget ({result.seconds:.0f} s) and its "
            "container was stopped"
        )
    if result.oom_killed:
        raise ContainerError("the scoring container ran out of memory and was stopped")
    if result.exit_code == EXIT_BAD_INPUT:
        raise ContainerError(_last_error(said) or "the scorer refused the inputs")
    if result.exit_code == EXIT_INFRASTRUCTURE:
        raise InfrastructureFailure(_last_error(said) or "a tool of the scorer did not finish")
    if result.exit_code == EXIT_INTERNAL:
        raise ContainerError(f"{_last_error(said)}. This is a scorer problem, not your spec.")
    if result.exit_code != 0:
        raise ContainerError(
            f"the scoring container ended with exit status {result.exit_code}"
            + (f": {said[-500:]}" if said else "")
        )
    try:
        data = json.loads(result.stdout)
        outcomes = {n: PhaseOutcome.from_dict(p) for n, p in data["phases"].items()}
        return ScoreReport(
            outcomes=outcomes, overall=data["overall"], fingerprint=data["fingerprint"]
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ContainerError(f"the scoring container printed no valid result ({exc})") from exc


def _last_error(text: str) -> str:
    lines = [line for line in text.splitlines() if line.startswith("error: ")]
    return lines[-1][len("error: ") :] if lines else text[-500:]


# ----------------------------------------------------------------------------- inputs


class input_dir:  # noqa: N801 - used as a context manager, like tempfile.TemporaryDirectory
    """A fresh directory the container can read (0755, files 0644), deleted on exit."""

    def __init__(self, root: str | None) -> None:
        self.root = root

    def __enter__(self) -> Path:
        if self.root:
            Path(self.root).mkdir(parents=True, exist_ok=True)
        self.path = Path(tempfile.mkdtemp(prefix=INPUT_PREFIX, dir=self.root or None))
        self.path.chmod(0o755)
        return self.path

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def write_inputs(
    folder: Path,
    spec_text: str,
    contract: Contract,
    windows: list[Window],
    adapter_text: str | None,
    cfg_text: str | None,
    heldout_windows: list[Window] | None = None,
) -> list[str]:
    """Write the run's inputs under `folder`; the CLI arguments that read them inside. The
    held-out windows go in as a file of the run's own input folder (removed with it), never
    in the image."""
    files = {"spec.tla": spec_text}
    argv = ["score", f"{IN}/spec.tla", "--task", contract.slug, "--json", "--progress", "json"]
    if adapter_text and adapter_text.strip():
        files["adapter.yaml"] = adapter_text
        argv += ["--adapter", f"{IN}/adapter.yaml"]
    if cfg_text and cfg_text.strip():
        files["spec.cfg"] = cfg_text
        argv += ["--cfg", f"{IN}/spec.cfg"]
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    # The contract the site scores with (not the one baked into the image), so the two never
    # disagree; only the files a contract is read from.
    task_dir = folder / "tasks" / contract.slug
    task_dir.mkdir(parents=True)
    for name in ("task.yaml", "description.md"):
        source = Path(contract.directory) / name
        if source.is_file():
            shutil.copyfile(source, task_dir / name)
    argv += ["--tasks-dir", f"{IN}/tasks"]
    if contract.has_traces:
        write_windows(windows, folder / "windows.jsonl")
        argv += ["--windows", f"{IN}/windows.jsonl"]
        if heldout_windows is not None:
            write_windows(heldout_windows, folder / "heldout.jsonl")
            argv += ["--heldout-windows", f"{IN}/heldout.jsonl"]
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return argv


# ----------------------------------------------------------------------------- the reaper


def reap_containers(
    client: DockerClient | None = None,
    now: float | None = None,
    input_root: str | None = None,
    input_older_than: float = 3 * 3600,
    is_live: Callable[[str], bool] | None = None,
) -> dict[str, list[str]]:
    """Remove scorer containers left behind: those past their deadline label, those whose
    worker process on this host is gone, and those whose run label `is_live(label)` says is no
    longer being scored (the site's record of the run, which sees workers on every host); then
    input directories older than any run can be. Returns what was removed."""
    client = client or docker_client()
    now = time.time() if now is None else now
    removed: dict[str, list[str]] = {"containers": [], "inputs": []}
    for container in client.containers.list(all=True, filters={"label": f"{LABEL}=1"}):
        labels = container.labels or {}
        live = is_live is None or is_live(labels.get(RUN_LABEL, ""))
        if live and _in_use(labels, now):
            continue
        _remove(container)
        removed["containers"].append(container.name or container.short_id)
    base = Path(input_root or tempfile.gettempdir())
    for path in base.glob(f"{INPUT_PREFIX}*"):
        try:
            if path.is_dir() and path.stat().st_mtime < now - input_older_than:
                shutil.rmtree(path, ignore_errors=True)
                removed["inputs"].append(str(path))
        except FileNotFoundError:
            continue
    return removed


def _in_use(labels: dict[str, str], now: float) -> bool:
    try:
        deadline = float(labels.get(DEADLINE_LABEL, "0"))
    except ValueError:
        return False
    if deadline <= now:
        return False
    host, _, pid = labels.get(WORKER_LABEL, "").rpartition(":")
    if host == socket.gethostname() and pid.isascii() and pid.isdigit():
        return pid_alive(int(pid))
    return True


def pid_alive(pid: int) -> bool:
    """Whether a local process runs (a zombie counts as dead); shared with the reaper."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is dead for our purpose
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][:1] != "Z"
    except (OSError, IndexError):
        return True
