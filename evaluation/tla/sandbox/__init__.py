"""Run SANY and TLC on untrusted modules, each call in its own throw-away sandbox.

One concern per module, in the order a call goes through them:

- `limits`: what a call is given (`Limits`) and returns (`ToolRun`), `SandboxError`;
- `precheck`: reasons to refuse a spec before any tool runs (modules, `TLCSet`);
- `rundir`: the call's own directory (validated module names, our library beside them), and
  the sweep of directories a killed worker left behind;
- `jvm`: the JVM command line; `cds`: the AppCDS archive it maps, and the training run making it;
- `process`: the command run isolated (`unshare`, the launcher `_launch.py`), limited, watched
  and killed; `capture`: the head and tail of its output that are kept;
- `status`: the call's status and note from how the tool ended;
- `calls`: `run_sany` and `run_tlc`, which put these together, and `deterministic_args`.

This package re-exports what the rest of the scorer uses, so `from evaluation.tla.sandbox import
run_tlc` keeps working; a caller that needs one concern only may import its module.
"""

from evaluation.tla.sandbox.calls import (
    FINGERPRINT_INDEX,
    deterministic_args,
    run_sany,
    run_tlc,
)
from evaluation.tla.sandbox.cds import appcds_archive
from evaluation.tla.sandbox.jvm import JVM_FLAGS, QUICK_JIT
from evaluation.tla.sandbox.limits import Limits, SandboxError, ToolRun
from evaluation.tla.sandbox.precheck import (
    DEFAULT_ALLOWED,
    precheck_spec,
    strip_comments,
)
from evaluation.tla.sandbox.process import isolation_mode
from evaluation.tla.sandbox.rundir import (
    RUN_DIR_PREFIX,
    sweep_abandoned_run_dirs,
    validate_module_name,
)

__all__ = [
    "DEFAULT_ALLOWED",
    "FINGERPRINT_INDEX",
    "JVM_FLAGS",
    "QUICK_JIT",
    "RUN_DIR_PREFIX",
    "Limits",
    "SandboxError",
    "ToolRun",
    "appcds_archive",
    "deterministic_args",
    "isolation_mode",
    "precheck_spec",
    "run_sany",
    "run_tlc",
    "strip_comments",
    "sweep_abandoned_run_dirs",
    "validate_module_name",
]
