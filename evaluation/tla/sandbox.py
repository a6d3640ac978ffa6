"""Run SANY and TLC on untrusted modules, each call in its own throw-away sandbox.

Layout of one call (a fresh directory under the system temp dir, deleted afterwards):

    spec/      the given modules, written by us under validated names (never a `.class`)
    lib/       copies of our library modules (`-DTLA-Library`), only `.tla`
    scratch/   java.io.tmpdir, HOME and TLC's metadir; a size-capped tmpfs when root

As root the tool runs under `unshare --mount --net`: a private mount namespace for the tmpfs
and a network namespace with only a downed loopback (TLC's RMI listener reaches nobody).
Without root, scratch is a plain directory and a watchdog thread kills the run when it grows
past the cap (checked every 0.2 s, so it may overshoot by what TLC writes in that time).
Every call: argv list, new session (killed as a group on timeout), RLIMIT_CPU, `-Xmx`,
`-workers 1`, a clean environment and output truncated to head + tail.
The JVM maps an AppCDS archive (evaluation/tla/appcds.py) when one exists for the tool: it
lives outside the run directory, is only read by the sandboxed JVM, and is made once by a
training run of our own module through this same sandbox.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from evaluation.tla import appcds, tools
from evaluation.tla import messages as msg
from evaluation.tla.messages import Message
from evaluation.tla.splitter import list_module

# A TLA+ identifier: letters, digits and `_` with at least one letter (`1_mutex` is one).
MODULE_NAME = re.compile(r"^(?=[A-Za-z0-9_]*[A-Za-z])[A-Za-z0-9_]{1,64}$")
JVM_FLAGS = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData"]
# C1 alone starts fastest, which most calls (seconds each) need; a long liveness check spends its
# time evaluating ENABLED per state and runs about twice as many states per CPU second with C2.
QUICK_JIT = "-XX:TieredStopAtLevel=1"
OUTPUT_HEAD_BYTES = 100_000
OUTPUT_TAIL_BYTES = 100_000
# Per-expression coverage is voluminous and unused; dropping it keeps the action lines in view.
DROPPED_CODES = frozenset({2221, 2775})
RESERVED_ARGS = frozenset({"-metadir", "-workers", "-config", "-generateSpecTE", "-userFile"})
LAUNCHER = Path(__file__).resolve().parent / "_launch.py"
SETUP_FAILED = 120
SANY_ERROR_MARKERS = (
    "***Parse Error***",
    "Semantic errors:",
    "*** Errors:",
    "Fatal errors",
    "Could not parse",
    "Cannot find source file",
    "Parse Error",
)
DISK_FULL = "No space left on device"
QUEUE_DONE = re.compile(r"\b0 states left on queue")
TLCSET = re.compile(r"\bTLCSet\b")
# Fixed on every TLC call (see `deterministic_args`); a contract may choose its own seed.
FINGERPRINT_INDEX = 0
DEFAULT_SEED = 1


class SandboxError(ValueError):
    """The request itself is invalid (bad module name, reserved argument)."""


@dataclass
class Limits:
    wall_seconds: float = 60
    cpu_seconds: int = 120
    heap_mb: int = 512
    scratch_mb: int = 256
    long_run: bool = False  # full tiered JIT (C2): worth its compile time only on long runs


def jvm_flags(limits: Limits) -> list[str]:
    return [f for f in JVM_FLAGS if not (limits.long_run and f == QUICK_JIT)]


@dataclass
class ToolRun:
    tool: str
    status: str
    exit_code: int | None
    messages: list[Message]
    output: str
    wall_seconds: float
    version: str
    note: str = ""
    truncated: bool = False
    flags: list[str] = field(default_factory=list)


def validate_module_name(name: str) -> str:
    if not isinstance(name, str) or not MODULE_NAME.match(name):
        raise SandboxError(f"invalid module name {name!r}: must be a TLA+ identifier")
    return name


def library_module_names() -> list[str]:
    return sorted(p.stem for p in tools.MODULES_DIR.glob("*.tla"))


_UNSHARE_WORKS: list[bool] = []


def _can_unshare() -> bool:
    """Whether namespaces are available. Only a success is remembered: a probe that failed
    once (a transient resource shortage) must not drop every later run to plain mode, without
    its network namespace, for the life of the worker."""
    if _UNSHARE_WORKS:
        return True
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--mount", "--net", "--", "true"], capture_output=True, check=False
    )
    if probe.returncode == 0:
        _UNSHARE_WORKS.append(True)
    return probe.returncode == 0


def isolation_mode() -> str:
    """'namespaces' (root: unshare + tmpfs) or 'plain' (directory + size watchdog)."""
    return "namespaces" if _can_unshare() else "plain"


# ----------------------------------------------------------------------------- run directory

RUN_DIR_PREFIX = "tla-sbx-"


def sweep_abandoned_run_dirs(
    older_than_seconds: float, now: float | None = None, root: Path | None = None
) -> list[Path]:
    """Delete run directories left by a killed worker (SIGKILL skips our own cleanup).

    Only directories older than any legitimate run can be are removed, so a sweep never races
    a live call; returns what was removed.
    """
    cutoff = (time.time() if now is None else now) - older_than_seconds
    removed = []
    for path in (root or Path(tempfile.gettempdir())).glob(f"{RUN_DIR_PREFIX}*"):
        try:
            if path.is_dir() and not path.is_symlink() and path.stat().st_mtime < cutoff:
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
        except FileNotFoundError:
            continue
    return removed


def _prepare(modules: dict[str, str], root: str) -> Path:
    names = [validate_module_name(n) for n in modules]
    validate_module_name(root)
    if root not in modules:
        raise SandboxError(f"root module {root!r} is not among the given modules")
    clash = set(names) & set(library_module_names())
    if clash:
        raise SandboxError(f"module name(s) {sorted(clash)} are reserved for library modules")
    run_dir = Path(tempfile.mkdtemp(prefix=RUN_DIR_PREFIX))
    for sub in ("spec", "lib", "scratch"):
        (run_dir / sub).mkdir()
    for name, text in modules.items():
        (run_dir / "spec" / f"{name}.tla").write_text(text, encoding="utf-8")
    for lib in tools.MODULES_DIR.glob("*.tla"):
        shutil.copyfile(lib, run_dir / "lib" / lib.name)
    return run_dir


def _java_argv(
    run_dir: Path, limits: Limits, main_class: str, cds: list[str] | None = None
) -> list[str]:
    scratch = run_dir / "scratch"
    return [
        "java",
        *jvm_flags(limits),
        *(_cds_flags(main_class) if cds is None else cds),
        f"-Xmx{int(limits.heap_mb)}m",
        f"-DTLA-Library={run_dir / 'lib'}",
        f"-Djava.io.tmpdir={scratch / 'tmp'}",
        f"-Duser.home={scratch / 'home'}",
        "-Dfile.encoding=UTF-8",
        "-cp",
        tools.jar_path(),
        main_class,
    ]


# ----------------------------------------------------------------------------- AppCDS

TRAINING_MODULE = """---- MODULE Warmup ----
EXTENDS Naturals, Sequences, FiniteSets, TLC
CONSTANT N
VARIABLES x, s
Init == x = 0 /\\ s = <<>>
Up == x < N /\\ x' = x + 1 /\\ s' = Append(s, x)
Reset == x = N /\\ x' = 0 /\\ s' = <<>>
Next == Up \\/ Reset
TypeOK == x \\in 0..N /\\ Len(s) <= N /\\ Cardinality({x}) = 1
====
"""
TRAINING_CFG = "CONSTANT N = 3\nINIT Init\nNEXT Next\nINVARIANT TypeOK\n"
TRAINING_ARGS = {
    "tla2sany.SANY": ["Warmup.tla"],
    "tlc2.TLC": [
        "-tool",
        "-workers",
        "1",
        "-metadir",
        "{metadir}",
        "-config",
        "Warmup.cfg",
        "-coverage",
        "1",
        "Warmup.tla",
    ],
}
# `-Xshare:auto` maps the archive when it fits and silently runs without it otherwise; tests set
# `-Xshare:on` to prove the archive is really used inside the sandbox.
CDS_SHARE = "-Xshare:auto"


def _cds_flags(main_class: str) -> list[str]:
    if main_class not in TRAINING_ARGS:
        return []
    archive = appcds.archive_for(main_class, JVM_FLAGS, lambda out: _train(main_class, out))
    if archive is None:
        return []
    return [CDS_SHARE, f"-XX:SharedArchiveFile={archive}", *appcds.QUIET]


def _train(main_class: str, out: Path) -> bool:
    """One run of our own trivial module, dumping the classes it loaded into `out`."""
    limits = Limits(wall_seconds=120, cpu_seconds=120, heap_mb=256, scratch_mb=64)
    cds = [f"-XX:ArchiveClassesAtExit={out}", *appcds.QUIET]
    raw = _run(
        {"Warmup": TRAINING_MODULE},
        "Warmup",
        limits,
        TRAINING_CFG if main_class == "tlc2.TLC" else None,
        list(TRAINING_ARGS[main_class]),
        main_class,
        cds=cds,
    )
    return raw.exit_code == 0 and not raw.killed_for


def appcds_archive(main_class: str) -> str | None:
    """The archive a `main_class` run would use now (created if missing), or None."""
    flags = _cds_flags(main_class)
    archive = next((f for f in flags if f.startswith("-XX:SharedArchiveFile=")), None)
    return archive.split("=", 1)[1] if archive else None


def _wrap(command: list[str], run_dir: Path, limits: Limits) -> list[str]:
    namespaces = _can_unshare()
    launch = [
        sys.executable,
        "-I",
        "-S",
        str(LAUNCHER),
        str(max(1, int(limits.cpu_seconds))),
        str(run_dir / "scratch"),
        str(int(limits.scratch_mb)),
        "1" if namespaces else "0",
        str(os.getpid()),
        "--",
        *command,
    ]
    return ["unshare", "--mount", "--net", "--", *launch] if namespaces else launch


def _env(run_dir: Path) -> dict[str, str]:
    # A clean environment: nothing like JAVA_TOOL_OPTIONS or CLASSPATH leaks into the JVM.
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(run_dir / "scratch" / "home"),
        "LANG": "C.UTF-8",
        "TMPDIR": str(run_dir / "scratch" / "tmp"),
    }


# ----------------------------------------------------------------------------- output capture


class _Capture:
    """Keeps the head and the tail of a stream, dropping voluminous coverage blocks."""

    def __init__(self) -> None:
        self.head: list[bytes] = []
        self.head_bytes = 0
        self.tail: deque[bytes] = deque()
        self.tail_bytes = 0
        self.truncated = False
        self._dropping: bytes | None = None

    def feed(self, line: bytes) -> None:
        if self._dropping is not None:
            if line.startswith(self._dropping):
                self._dropping = None
            return
        if line.startswith(b"@!@!@STARTMSG "):
            code = line[14:].split(b":", 1)[0]
            if code.isdigit() and int(code) in DROPPED_CODES:
                self._dropping = b"@!@!@ENDMSG " + code
                return
        if self.head_bytes + len(line) <= OUTPUT_HEAD_BYTES and not self.tail:
            self.head.append(line)
            self.head_bytes += len(line)
            return
        self.tail.append(line)
        self.tail_bytes += len(line)
        while self.tail_bytes > OUTPUT_TAIL_BYTES and len(self.tail) > 1:
            self.tail_bytes -= len(self.tail.popleft())
            self.truncated = True

    def text(self) -> str:
        marker = [b"\n[... output truncated ...]\n"] if self.truncated else []
        return b"".join(self.head + marker + list(self.tail)).decode("utf-8", "replace")


def _pump(stream, capture: _Capture) -> None:
    for line in iter(lambda: stream.readline(65536), b""):
        capture.feed(line)
    stream.close()


def _dir_size(path: Path) -> int:
    total = 0
    for base, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(base, name)).st_size
            except OSError:
                pass
    return total


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@dataclass
class _Raw:
    exit_code: int | None
    output: str
    truncated: bool
    wall_seconds: float
    killed_for: str = ""


def _execute(argv: list[str], run_dir: Path, limits: Limits) -> _Raw:
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=run_dir / "spec",
        env=_env(run_dir),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    capture = _Capture()
    reader = threading.Thread(target=_pump, args=(proc.stdout, capture), daemon=True)
    reader.start()
    try:
        killed_for = _watch(proc, run_dir, limits, start)
        proc.wait()
    finally:
        # Every exit path, including an exception raised in the poll loop (a job timeout's
        # signal handler, KeyboardInterrupt): the JVM and anything it started die with the call.
        _kill_group(proc)
        proc.wait()
        reader.join(timeout=5)
    return _Raw(
        proc.returncode, capture.text(), capture.truncated, time.monotonic() - start, killed_for
    )


def _watch(proc: subprocess.Popen, run_dir: Path, limits: Limits, start: float) -> str:
    """Poll until the tool ends or a limit is hit; returns what it was killed for ("" if none)."""
    # The cap is the tmpfs size when the run got namespaces (decided once, by `_wrap`).
    watch_scratch = proc.args[0] != "unshare"
    cap_bytes = int(limits.scratch_mb) * 1024 * 1024
    deadline = start + float(limits.wall_seconds)
    while proc.poll() is None:
        killed_for = ""
        if time.monotonic() >= deadline:
            killed_for = "wall"
        elif watch_scratch and _dir_size(run_dir / "scratch") > cap_bytes:
            killed_for = "scratch"
        if killed_for:
            _kill_group(proc)
            return killed_for
        try:
            proc.wait(timeout=0.05 if time.monotonic() - start < 2 else 0.2)
        except subprocess.TimeoutExpired:
            pass
    return ""


def _run(
    modules,
    root,
    limits,
    cfg: str | None,
    tool_args: list[str],
    main_class: str,
    cds: list[str] | None = None,
):
    run_dir = _prepare(modules, root)
    try:
        if cfg is not None:
            (run_dir / "spec" / f"{root}.cfg").write_text(cfg, encoding="utf-8")
        metadir = str(run_dir / "scratch" / "meta")
        tool_args = [metadir if a == "{metadir}" else a for a in tool_args]
        java = _java_argv(run_dir, limits, main_class, cds)
        argv = _wrap(java + tool_args, run_dir, limits)
        return _execute(argv, run_dir, limits)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def _common_status(raw: _Raw) -> tuple[str, str] | None:
    if raw.killed_for == "wall":
        return "timeout", "wall-clock limit reached; the tool was killed"
    if raw.killed_for == "scratch":
        return "error", "scratch space cap exceeded; the tool was killed"
    if raw.exit_code in (-signal.SIGXCPU, -signal.SIGKILL, 128 + signal.SIGXCPU, 137):
        return "timeout", "CPU-time limit reached; the tool was killed"
    if raw.exit_code == SETUP_FAILED and "sandbox setup failed" in raw.output:
        return "crashed", "sandbox setup failed"
    if raw.exit_code is None or raw.exit_code < 0:
        return "crashed", f"tool ended abnormally (exit {raw.exit_code})"
    return None


# ----------------------------------------------------------------------------- public API


def run_sany(
    modules: dict[str, str],
    root: str,
    limits: Limits | None = None,
    *,
    roots: list[str] | None = None,
) -> ToolRun:
    """SANY on `root` (and what it EXTENDS). ok iff exit 0 and no error section in the output.

    `roots` checks several modules in one JVM (SANY stops at the first fatal parse error)."""
    limits = limits or Limits()
    files = [f"{validate_module_name(r)}.tla" for r in (roots or [root])]
    raw = _run(modules, root, limits, None, files, "tla2sany.SANY")
    status, note = _common_status(raw) or _sany_status(raw)
    banner = re.search(r"SANY2 Version[^\n]*", raw.output[:2000])
    return ToolRun(
        "sany",
        status,
        raw.exit_code,
        [],
        raw.output,
        raw.wall_seconds,
        banner.group(0).strip() if banner else "unknown",
        note,
        raw.truncated,
        jvm_flags(limits) + [f"-Xmx{limits.heap_mb}m"],
    )


def _sany_status(raw: _Raw) -> tuple[str, str]:
    if raw.exit_code != 0:
        return "error", f"SANY exited with {raw.exit_code}"
    if any(marker in raw.output for marker in SANY_ERROR_MARKERS):
        return "error", "SANY reported errors (it exits 0 on semantic errors)"
    return "ok", ""


def run_tlc(
    modules: dict[str, str],
    root: str,
    cfg: str,
    extra_args: list[str] | None = None,
    limits: Limits | None = None,
    *,
    seed: int | None = None,
    trusted: tuple[str, ...] = (),
) -> ToolRun:
    """TLC in tool mode on `root` with `cfg`, always with a fixed `-seed` and `-fp`
    (`deterministic_args`).

    `trusted` names generated modules that may use `TLCSet` (P2's marks module, whose text is
    the scorer's alone: integers and a nonce, nothing a submitter wrote).

    status ok requires exit 0 and, for a model check (not `-simulate`), the final 2199 message
    saying 0 states were left on the queue: an early stop is never a pass. Modules that use
    `TLCSet` are refused outright (`TLCSet("exit", TRUE)` forges "No error has been found").
    """
    limits = limits or Limits()
    extra_args = list(extra_args or [])
    reserved = RESERVED_ARGS.intersection(extra_args)
    if reserved:
        raise SandboxError(f"reserved TLC argument(s) {sorted(reserved)}")
    extra_args = deterministic_args(extra_args, seed)
    forging = sorted(
        name for name, text in modules.items() if name not in trusted and uses_tlcset(text)
    )
    if forging:
        return ToolRun("tlc", "error", None, [], "", 0.0, "", f"refused: TLCSet used in {forging}")
    fixed = ["-tool", "-workers", "1", "-metadir", "{metadir}", "-config", f"{root}.cfg"]
    raw = _run(modules, root, limits, cfg or "", fixed + extra_args + [f"{root}.tla"], "tlc2.TLC")
    parsed = msg.parse_messages(raw.output)
    status, note = _common_status(raw) or _tlc_status(
        raw, parsed, "-simulate" in extra_args, limits
    )
    version = msg.first(parsed, 2262)
    return ToolRun(
        "tlc",
        status,
        raw.exit_code,
        parsed,
        raw.output,
        raw.wall_seconds,
        version.text.splitlines()[0] if version else "unknown",
        note,
        raw.truncated,
        jvm_flags(limits) + [f"-Xmx{limits.heap_mb}m", "-workers", "1"] + extra_args,
    )


# TLC's generic preamble to an evaluation error (message 1000); the reason follows it.
_BOILERPLATE = (
    "TLC threw an unexpected exception",
    "This was probably caused",
    "See the User Output",
    "The exception was a",
)


def _exit_note(exit_code: int, parsed: list[Message]) -> str:
    """The exit code with TLC's own first error line, so no consumer shows a bare number."""
    lines = [
        line.strip().lstrip(": ").strip()
        for m in msg.errors(parsed)
        for line in m.text.splitlines()
    ]
    line = next((x for x in lines if x and not x.startswith(_BOILERPLATE)), "")[:300]
    return f"TLC exited with {exit_code}" + (f": {line}" if line else "")


def deterministic_args(extra_args: list[str], seed: int | None = None) -> list[str]:
    """`extra_args` plus the flags that make a run repeatable, unless already given.

    Without them TLC draws its seed (`RandomElement`, `-simulate`) and its fingerprint
    polynomial (which state a collision drops, the liveness checker's search order) at random
    on every run, so the same spec could score differently from one run to the next.
    """
    args = list(extra_args)
    if "-fp" not in args:
        args += ["-fp", str(FINGERPRINT_INDEX)]
    if "-seed" not in args:
        args += ["-seed", str(DEFAULT_SEED if seed is None else int(seed))]
    return args


def _tlc_status(
    raw: _Raw, parsed: list[Message], simulate: bool, limits: Limits | None = None
) -> tuple[str, str]:
    if raw.exit_code != 0:
        if any(DISK_FULL in m.text for m in msg.errors(parsed)):
            cap = f" ({limits.scratch_mb} MB)" if limits else ""
            return "error", (
                f"scratch space cap{cap} exhausted: TLC's state queue outgrew the disk budget "
                f"(No space left on device; exit {raw.exit_code})"
            )
        return "error", _exit_note(raw.exit_code, parsed)
    if simulate:
        return "ok", ""
    final = msg.last(parsed, msg.FINAL_STATS)
    if final is None or not QUEUE_DONE.search(final.text):
        return "error", "TLC stopped before exploring every state (states left on the queue)"
    return "ok", ""


_COMMENT = re.compile(r"\(\*.*?\*\)|\\\*[^\n]*", re.DOTALL)
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def strip_comments(text: str) -> str:
    """Module text without strings and comments (non-nested block comments suffice for
    a token search: a nested comment can only hide text, never add a token)."""
    return _COMMENT.sub(" ", _STRING.sub('""', text))


# ----------------------------------------------------------------------------- spec pre-check

STANDARD_MODULES = frozenset(
    {
        "TLC",
        "Sequences",
        "Naturals",
        "Integers",
        "FiniteSets",
        "Bags",
        "Reals",
        "RealTime",
        "Randomization",
        "Toolbox",
    }
)
LIBRARY_MODULES = frozenset({"SequencesExt", "FiniteSetsExt", "Functions", "Folds"})
DEFAULT_ALLOWED = STANDARD_MODULES | LIBRARY_MODULES
IO_MODULES = {
    "IOUtils": "it reads and writes files and runs processes",
    "Json": "it reads and writes files",
    "CSV": "it reads and writes files",
    "TLCExt": "it controls the model checker itself",
}


def uses_tlcset(text: str) -> bool:
    """TLCSet anywhere, found both by token search and as a parsed identifier (tree-sitter), so
    neither a quoting trick that fools the comment stripper nor odd spacing hides it."""
    if TLCSET.search(strip_comments(text)):
        return True
    return "TLCSet" in list_module(text).identifiers


def precheck_spec(text: str, extends_allowed=None, module: str | None = None) -> list[str]:
    """Reasons to refuse a spec before any tool runs: forbidden modules and `TLCSet`.

    `module` is the spec's own module name (a self-INSTANCE is not foreign)."""
    allowed = set(extends_allowed or DEFAULT_ALLOWED)
    listing = list_module(text)
    reasons = []
    for name in dict.fromkeys(listing.extends + listing.instances):
        if name == module or name in allowed:
            continue
        if name in IO_MODULES:
            reasons.append(f"module {name} is refused: {IO_MODULES[name]}")
        else:
            reasons.append(
                f"module {name} is not available to specs (allowed: {', '.join(sorted(allowed))})"
            )
    if "TLCSet" in listing.identifiers or TLCSET.search(strip_comments(text)):
        reasons.append(
            'TLCSet is refused: TLCSet("exit", TRUE) can stop TLC early and forge a pass'
        )
    return reasons
