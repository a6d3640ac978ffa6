"""The sandbox's two calls, SANY and TLC, each in a run directory of its own."""

from __future__ import annotations

import re

from evaluation.results import InfrastructureFailure
from evaluation.tla import messages as msg
from evaluation.tla.codes import EC
from evaluation.tla.parsed import ParsedSpec
from evaluation.tla.sandbox.cds import cds_flags
from evaluation.tla.sandbox.jvm import jvm_flags
from evaluation.tla.sandbox.limits import Limits, SandboxError, ToolRun
from evaluation.tla.sandbox.precheck import uses_tlcset
from evaluation.tla.sandbox.process import METADIR, RawRun, run_tool
from evaluation.tla.sandbox.rundir import run_directory, validate_module_name
from evaluation.tla.sandbox.status import common_status, sany_status, tlc_status

RESERVED_ARGS = frozenset({"-metadir", "-workers", "-config", "-generateSpecTE", "-userFile"})
# Fixed on every TLC call (see `deterministic_args`); a contract may choose its own seed.
FINGERPRINT_INDEX = 0
DEFAULT_SEED = 1


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
    raw = _call(modules, root, limits, None, files, "tla2sany.SANY")
    status, note = common_status(raw, limits) or sany_status(raw)
    _raise_if_crashed("SANY", status, note)
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


def run_tlc(
    modules: dict[str, str],
    root: str,
    cfg: str,
    extra_args: list[str] | None = None,
    limits: Limits | None = None,
    *,
    seed: int | None = None,
    spec: ParsedSpec | None = None,
    trusted: tuple[str, ...] = (),
) -> ToolRun:
    """TLC in tool mode on `root` with `cfg`, always with a fixed `-seed` and `-fp`
    (`deterministic_args`).

    `trusted` names generated modules that may use `TLCSet` (P2's marks module, whose text is
    the scorer's alone: integers and a nonce, nothing a submitter wrote).

    status ok requires exit 0 and, for a model check (not `-simulate`), the final TLC_STATS
    message saying 0 states were left on the queue: an early stop is never a pass. Modules that
    use `TLCSet` are refused outright (`TLCSet("exit", TRUE)` forges "No error has been found"):
    every module is scanned, and `spec` (the spec among them, as the pipeline parsed it) only
    spares the parse of a module whose text is exactly its text (`precheck.listing_of`).
    """
    limits = limits or Limits()
    extra_args = list(extra_args or [])
    reserved = RESERVED_ARGS.intersection(extra_args)
    if reserved:
        raise SandboxError(f"reserved TLC argument(s) {sorted(reserved)}")
    extra_args = deterministic_args(extra_args, seed)
    forging = sorted(
        name for name, text in modules.items() if name not in trusted and uses_tlcset(text, spec)
    )
    if forging:
        return ToolRun("tlc", "error", None, [], "", 0.0, "", f"refused: TLCSet used in {forging}")
    fixed = ["-tool", "-workers", "1", "-metadir", METADIR, "-config", f"{root}.cfg"]
    raw = _call(modules, root, limits, cfg or "", fixed + extra_args + [f"{root}.tla"], "tlc2.TLC")
    parsed = msg.parse_messages(raw.output)
    status, note = common_status(raw, limits) or tlc_status(
        raw, parsed, "-simulate" in extra_args, limits
    )
    _raise_if_crashed("TLC", status, note)
    version = msg.first(parsed, EC.TLC_VERSION)
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
        raw.cpu_seconds,
        raw.killed_for == "work",
    )


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


def _raise_if_crashed(tool: str, status: str, note: str) -> None:
    """A run the machine ended is no result of the spec's: it leaves the scoring."""
    if status == "crashed":
        raise InfrastructureFailure(f"{tool} did not finish: {note}")


def _call(
    modules: dict[str, str],
    root: str,
    limits: Limits,
    cfg: str | None,
    tool_args: list[str],
    main_class: str,
) -> RawRun:
    # The archive is asked for once the request has passed the run directory's checks: an
    # invalid request never starts a training run.
    with run_directory(modules, root, cfg) as run_dir:
        return run_tool(run_dir, limits, main_class, tool_args, cds_flags(main_class))
