"""The module that follows the traces writes each constraint, state and message once (tables
CI, CS, MV) and gives events and negatives their numbers: a trace repeats its states (one
event's post-state is the next one's pre-state), and written out in full the etcd corpus's
module ran TLC's parser out of heap (3.8 MB)."""

import re
from dataclasses import replace

import pytest
from django.conf import settings

from evaluation.inputs.contracts import Traces, load_contract
from evaluation.phases.conformance import check_conformance, runner
from evaluation.windows import cut_windows
from tests.reference_support import read_reference

pytestmark = pytest.mark.tla


def _table(module: str, name: str) -> list[str]:
    """The entries of a generated table `_<name>_<nonce> == <<...>>`, one per line."""
    match = re.search(rf"^_{name}_[0-9a-f]+ == <<(.*?)>>$\n(?=_)", module, re.M | re.S)
    assert match, name
    return [line.strip().rstrip(",") for line in match.group(1).split("\n")]


def _numbers(module: str, name: str) -> list[int]:
    match = re.search(rf"^_{name}_[0-9a-f]+ == <<([0-9, ]*)>>$", module, re.M)
    assert match, name
    return [int(n) for n in match.group(1).split(", ")]


def test_each_state_is_written_once_and_the_reference_still_follows(monkeypatch):
    contract = load_contract("etcd")
    one = replace(contract, traces=Traces("etcd", ("traces/etcd/harness/election-3.ndjson",)))
    windows = cut_windows(one, settings.SYSMOBENCH_DATA_DIR)
    modules: list[str] = []
    real = runner.run_module

    def keep(plan, spec, module, budget, trusted=False):
        modules.append(module)
        return real(plan, spec, module, budget, trusted)

    monkeypatch.setattr(runner, "run_module", keep)
    outcome = check_conformance(read_reference("etcd", "etcdraft.tla"), contract, windows)
    assert outcome.score == 1.0
    states = _table(modules[0], "CS")
    assert len(states) == len(set(states))
    # The events' pre-, post- and kept states and the negatives' posts name fewer states than
    # they are: the repeated ones are shared.
    named = [n for t in ("P", "Q", "K", "NQ") for n in _numbers(modules[0], t)]
    assert len(named) == 3 * len(windows) + len(_numbers(modules[0], "NQ"))
    assert set(named) == set(range(1, len(states) + 1))
    assert len(states) < len(named)
    constraints = _table(modules[0], "CI")
    assert len(constraints) == len(set(constraints))
