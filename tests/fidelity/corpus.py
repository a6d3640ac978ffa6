"""The fidelity corpus: specs written for the original benchmark, each with its own cfg (read
from corpus/fidelity, shipped with the project) and the adapter a submitter would
write for it (committed beside this file as `<task>/<name>.adapter.yaml`).

Shared by the corpus modules (`tests/test_fidelity_corpus_*.py`, their checks in `checks.py`) and
`bench/fidelity.py`. Django-free.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

from tests.trace_sample import first_traces

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DATA_DIR = Path(os.environ.get("SYSMOBENCH_DATA_DIR", ROOT / "corpus"))
FIDELITY = DATA_DIR / "fidelity"


@dataclass(frozen=True)
class Entry:
    name: str  # unique label, e.g. "dqueue/specula/claude"
    task: str
    spec: str  # path under fidelity/
    adapter: str  # path under tests/fidelity/

    @property
    def spec_path(self) -> Path:
        return FIDELITY / self.spec

    @property
    def cfg_path(self) -> Path:
        return self.spec_path.with_suffix(".cfg")

    @property
    def adapter_path(self) -> Path:
        return HERE / self.adapter

    def adapter_text(self) -> str:
        return self.adapter_path.read_text() if self.adapter_path.exists() else ""

    def adapter_lines(self) -> int:
        """Lines a submitter wrote: not blank, not a comment."""
        lines = self.adapter_text().splitlines()
        return sum(1 for line in lines if line.strip() and not line.lstrip().startswith("#"))


def _pgo(task: str, variant: str) -> Entry:
    return Entry(
        f"{task}/{variant}",
        task,
        f"spec/{task}/{variant}/{task}.tla",
        f"{task}/{variant.replace('/', '_')}.adapter.yaml",
    )


def _bug(task: str, stem: str) -> Entry:
    return Entry(
        f"{task} (bug)",
        task,
        f"spec_reproduce_bugs/{task}/{stem}.tla",
        f"{task}/{stem}.adapter.yaml",
    )


CORPUS = [
    _bug("mutex", "1_mutex"),
    _bug("rwmutex", "1_rwmutex"),
    _bug("etcd", "1_etcdraft"),
    _bug("redisraft", "1_redisraft"),
    _bug("curp", "curp"),
    _pgo("dqueue", "specula/claude"),
    _pgo("dqueue", "specula/deepseek"),
    _pgo("dqueue", "specula/gemini"),
    _pgo("dqueue", "specula/gpt5"),
    _pgo("dqueue", "simpleloop/claude"),
    _pgo("locksvc", "claude"),
    _pgo("locksvc", "deepseek"),
    _pgo("locksvc", "gpt5"),
    _pgo("raftkvs", "claude"),
    _pgo("raftkvs", "gpt5"),
]


def score(entry: Entry, on_phase=None, phases=None, traces: int = 0, p3_work: float = 0):
    """Score one corpus spec through the full pipeline, as the site's job does; `traces` > 0
    keeps only the task's first that many traces (by id), `p3_work` > 0 is P3's CPU work bound
    in place of the task's."""
    from evaluation.inputs.contracts import load_contract, parse_adapter
    from evaluation.pipeline import score_spec
    from evaluation.windows import cut_windows

    contract = load_contract(entry.task)
    if p3_work:
        budgets = contract.budgets.with_("conformance", work_cpu_seconds=p3_work)
        contract = dataclasses.replace(contract, budgets=budgets)
    adapter = parse_adapter(entry.adapter_text(), contract, file=str(entry.adapter_path))
    windows = cut_windows(contract, DATA_DIR) if contract.has_traces else []
    if traces:
        windows = first_traces(windows, traces)
    return score_spec(
        entry.spec_path.read_text(),
        contract,
        windows,
        adapter,
        on_phase=on_phase,
        cfg_text=entry.cfg_path.read_text(),
        **({"phases": phases} if phases else {}),
    )
