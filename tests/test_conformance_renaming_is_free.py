"""Renaming is free by construction: P3 compares a trace's observations with the adapter's
mapping of the spec's own states, and never pins a spec variable by its name. Each traced
task's reference spec, with every variable and operator renamed mechanically and an adapter
that only renames them back, gets exactly the reference's verdict on every window.
Real TLC on every traced task's windows."""

import re

import pytest
from django.conf import settings

from evaluation.inputs.adapter_check import BOUND_NAMES
from evaluation.inputs.contracts import Adapter, load_contract, parse_adapter
from evaluation.phases.conformance import check_conformance
from evaluation.tla.spectext import spec_variables
from evaluation.windows import cut_windows
from tests.conformance_support import verdicts

pytestmark = pytest.mark.tla

TASKS = [
    "spin",
    "mutex",
    "rwmutex",
    "ringbuffer",
    "dqueue",
    "locksvc",
    "raftkvs",
    "etcd",
    "redisraft",
    "zookeeper",
]
DEFINITION = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\([^)]*\))?\s*==", re.MULTILINE)
# A string literal, a subscript (`WF_vars`, `]_vars`), or an identifier not read as a record
# field (`.f`, `!.f`; `1..N` is a range, not a field; `[f |-> ...]` is told apart below).
TOKEN = re.compile(
    r'"(?:[^"\\]|\\.)*"|(?<!\w)(?<!(?<!\.)\.)(?:(WF_|SF_|(?<=\])_)(\w+)'
    r"|([A-Za-z_][A-Za-z0-9_]*))"
)


def renamed_names(spec: str) -> dict[str, str]:
    """Each variable and operator the spec defines -> a new name of the same length (its first
    letter replaced): TLA+'s bulleted lists are layout-sensitive, so a renaming must not move a
    column."""
    defined = set(spec_variables(spec)) | {m.group(1) for m in DEFINITION.finditer(spec)}
    taken = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", spec))
    out: dict[str, str] = {}
    for name in sorted(defined):
        out[name] = next(
            c + name[1:] for c in "XQZJWVK" if c + name[1:] not in taken | set(out.values())
        )
    return out


def _field(text: str, m: re.Match) -> bool:
    """`[f |-> ...]` or `, f |-> ...`: a record's field name (not `[x \\in S |-> ...]`)."""
    after = text[m.end() :].lstrip()
    before = text[: m.start()].rstrip()
    return after.startswith("|->") and before.endswith(("[", ","))


def rename(text: str, names: dict[str, str]) -> str:
    def one(m: re.Match) -> str:
        if m.group(2):
            return m.group(1) + names.get(m.group(2), m.group(2))
        word = m.group(3)
        if word is None or word not in names or _field(text, m):
            return m.group(0)  # a string, a name of the spec's we keep, or a record field
        return names[word]

    return TOKEN.sub(one, text)


def renaming_adapter(contract, names: dict[str, str]) -> Adapter:
    identity = Adapter.identity_for(contract)
    lines = ["variables:"]
    lines += [f"  {v}: '{rename(v, names)}'" for v in contract.schema]
    lines.append("actions:")
    # `actor` and `msg` in an action expression are the window's bound names, not the spec's
    # (locksvc has a variable `msg`): they keep their names.
    kept = {k: v for k, v in names.items() if k not in BOUND_NAMES}
    lines += [f"  {a}: '{rename(e, kept)}'" for a, e in identity.actions.items()]
    lines.append(f"behaviour: {{init: {names['Init']}, next: {names['Next']}}}")
    return parse_adapter("\n".join(lines) + "\n", contract)


@pytest.mark.parametrize("task", TASKS)
def test_a_renamed_reference_scores_exactly_the_reference(task):
    contract = load_contract(task)
    windows = cut_windows(contract, settings.SYSMOBENCH_DATA_DIR)
    spec = (contract.directory / "reference" / f"{contract.module}.tla").read_text()
    names = renamed_names(spec)
    assert set(contract.schema) <= set(names) and "Init" in names and "Next" in names
    renamed = rename(spec, names)
    assert not set(spec_variables(renamed)) & set(contract.schema)  # nothing keeps its name
    reference = check_conformance(spec, contract, windows)
    outcome = check_conformance(renamed, contract, windows, renaming_adapter(contract, names))
    assert reference.status == outcome.status == "ran", outcome.details
    assert verdicts(outcome) == verdicts(reference)
    assert outcome.score == reference.score
    specificity = {a.action: a.detail["specificity"]["fair"]["accepted"] for a in outcome.actions}
    assert specificity == {
        a.action: a.detail["specificity"]["fair"]["accepted"] for a in reference.actions
    }
