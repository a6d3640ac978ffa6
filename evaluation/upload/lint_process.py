"""The upload check in its own interpreter, bounded by a wall timeout.

Tree-sitter holds the GIL while it parses, and its cost grows faster than quadratically with
nesting; run inside the web process, one hostile upload froze every request
(docs/decisions/0028-access-and-hostile-input.md). Here the parse, the adapter's YAML and SANY run
in a child `python -m evaluation.upload.lint_process` in its own process group, killed whole at the
deadline. A timeout or a crash refuses the upload: it is a status, never a pass.

Protocol: one JSON object on stdin {"task", "tasks_dir", "spec", "adapter", "cfg", "seconds"},
one on stdout {"spec", "adapter", "cfg"}: each a message, or "" when that input is fine, and
"spec_sany_rejected": true when the spec's message is SANY's rejection of a spec every other
check passed (such a spec may still be scored: `lint.Finding`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from evaluation.inputs.adapter_check import spec_problems
from evaluation.inputs.contracts import ContractError, load_contract, parse_adapter
from evaluation.inputs.tlc_cfg import CfgError, parse_cfg
from evaluation.upload import lint

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# Leave the child this long after SANY's own deadline to report, so it ends before being killed
# (a killed child could not stop the JVM it started in a session of its own).
SANY_MARGIN_SECONDS = 1.0


@dataclass
class CheckOutcome:
    spec: str = ""
    adapter: str = ""
    seconds: float = 0.0
    cfg: str = ""
    spec_sany_rejected: bool = False


def check_isolated(
    spec: str, adapter: str, task: str, tasks_dir: Path | str, seconds: float, cfg: str = ""
) -> CheckOutcome:
    """Run the spec, adapter and cfg checks for `task` in a child interpreter, at most
    `seconds`."""
    request = {
        "task": task,
        "tasks_dir": str(tasks_dir),
        "spec": spec,
        "adapter": adapter,
        "cfg": cfg,
        "seconds": seconds,
    }
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "evaluation.upload.lint_process"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=PROJECT_ROOT,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(json.dumps(request).encode(), timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return CheckOutcome(
            spec=f"The check did not finish within {seconds:g} s; simplify the spec (deep "
            "nesting and very long expressions are the usual causes) and upload it again.",
            seconds=time.monotonic() - started,
        )
    elapsed = time.monotonic() - started
    try:
        answer = json.loads(out)
        return CheckOutcome(
            str(answer["spec"]),
            str(answer["adapter"]),
            elapsed,
            str(answer["cfg"]),
            answer.get("spec_sany_rejected") is True,
        )
    except (ValueError, KeyError, TypeError):
        tail = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return CheckOutcome(
            spec=f"The check stopped without an answer ({tail[0][:200]}); the upload was not "
            "accepted. Try again; if it happens again, report the spec to the maintainers.",
            seconds=elapsed,
        )


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + float(request["seconds"]) - SANY_MARGIN_SECONDS
    contract = load_contract(request["task"], request["tasks_dir"])
    answer: dict[str, Any] = {"spec": "", "adapter": "", "cfg": ""}
    adapter = None
    try:
        adapter = parse_adapter(request["adapter"], contract)
    except ContractError as error:
        answer["adapter"] = f"The adapter is not valid: {error}"
    except RecursionError:
        answer["adapter"] = "The adapter nests too deeply to read."
    if adapter is not None and request["adapter"].strip():
        # Its action mappings must call the spec's own actions (conformance refuses the same).
        problems = spec_problems(adapter, lint.read_spec(request["spec"])[0])
        answer["adapter"] = "; ".join(f"The adapter is not valid: {p}" for p in problems)
    try:
        parse_cfg(request.get("cfg") or "")
    except CfgError as error:
        answer["cfg"] = f"The cfg cannot be read: {error}"
    sany_wall = max(1.0, min(lint.SANY_LIMITS.wall_seconds, deadline - time.monotonic()))
    limits = replace(lint.SANY_LIMITS, wall_seconds=sany_wall)
    # With a broken adapter the names it would map are unknown: check them once it is fixed.
    finding = lint.first_finding(
        request["spec"], contract, adapter, names=adapter is not None, sany_limits=limits
    )
    answer["spec"], answer["spec_sany_rejected"] = finding.message, finding.sany_rejected
    return answer


def main() -> int:
    request = json.loads(sys.stdin.buffer.read())
    json.dump(_answer(request), sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
