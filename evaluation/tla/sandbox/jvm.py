"""The JVM command line of one call: start-up flags, heap, library path, scratch, main class."""

from __future__ import annotations

from pathlib import Path

from evaluation.tla import tools
from evaluation.tla.sandbox.limits import Limits

JVM_FLAGS = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData"]
# C1 alone starts fastest, which most calls (seconds each) need; a long liveness check spends its
# time evaluating ENABLED per state and runs about twice as many states per CPU second with C2.
QUICK_JIT = "-XX:TieredStopAtLevel=1"


def jvm_flags(limits: Limits) -> list[str]:
    return [f for f in JVM_FLAGS if not (limits.long_run and f == QUICK_JIT)]


def java_argv(run_dir: Path, limits: Limits, main_class: str, cds: list[str]) -> list[str]:
    """`java` with our flags, the class-data flags `cds` (`cds.py`), and the run directory's
    library, temp dir and home."""
    scratch = run_dir / "scratch"
    return [
        "java",
        *jvm_flags(limits),
        *cds,
        f"-Xmx{int(limits.heap_mb)}m",
        f"-DTLA-Library={run_dir / 'lib'}",
        f"-Djava.io.tmpdir={scratch / 'tmp'}",
        f"-Duser.home={scratch / 'home'}",
        "-Dfile.encoding=UTF-8",
        "-cp",
        tools.jar_path(),
        main_class,
    ]
