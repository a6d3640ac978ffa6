"""The AppCDS archive a tool's JVM maps (`evaluation/tla/appcds.py` keeps the archives).

The archive lives outside the run directory, is only read by the sandboxed JVM, and is made once
by a training run of our own module through this same sandbox.
"""

from __future__ import annotations

from pathlib import Path

from evaluation.tla import appcds
from evaluation.tla.sandbox.jvm import JVM_FLAGS
from evaluation.tla.sandbox.limits import Limits
from evaluation.tla.sandbox.process import METADIR, run_tool
from evaluation.tla.sandbox.rundir import run_directory

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
        METADIR,
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


def cds_flags(main_class: str) -> list[str]:
    """The JVM flags that map `main_class`'s archive (made now if missing), or none."""
    if main_class not in TRAINING_ARGS:
        return []
    archive = appcds.archive_for(main_class, JVM_FLAGS, lambda out: _train(main_class, out))
    if archive is None:
        return []
    return [CDS_SHARE, f"-XX:SharedArchiveFile={archive}", *appcds.QUIET]


def _train(main_class: str, out: Path) -> bool:
    """One run of our own trivial module, dumping the classes it loaded into `out`."""
    limits = Limits(wall_seconds=120, cpu_seconds=120, heap_mb=256, scratch_mb=64)
    dump = [f"-XX:ArchiveClassesAtExit={out}", *appcds.QUIET]
    cfg = TRAINING_CFG if main_class == "tlc2.TLC" else None
    with run_directory({"Warmup": TRAINING_MODULE}, "Warmup", cfg) as run_dir:
        raw = run_tool(run_dir, limits, main_class, list(TRAINING_ARGS[main_class]), dump)
    return raw.exit_code == 0 and not raw.killed_for


def appcds_archive(main_class: str) -> str | None:
    """The archive a `main_class` run would use now (created if missing), or None."""
    flags = cds_flags(main_class)
    archive = next((f for f in flags if f.startswith("-XX:SharedArchiveFile=")), None)
    return archive.split("=", 1)[1] if archive else None
