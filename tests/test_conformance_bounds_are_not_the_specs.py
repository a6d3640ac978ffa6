"""Bounds that are ours never decide a verdict: P3 reads a contract's model-checking bounds at
the `conformance_constants` values, which cover the trace corpus, and a window that still
fails only because of a bound says so in its reason."""

import dataclasses

import pytest
from django.conf import settings

from evaluation.inputs.contracts import ContractError, load_contract
from evaluation.phases.conformance import check_conformance
from evaluation.windows import cut_windows
from tests.conformance_support import replace_once
from tests.reference_support import read_reference

BOUND_NOTE = "decided by the contract's bound (MaxLogLen = 2)"


@pytest.fixture(scope="module")
def etcd():
    return load_contract("etcd")


@pytest.fixture(scope="module")
def proposals(etcd):
    windows = cut_windows(etcd, settings.SYSMOBENCH_DATA_DIR)
    return [w for w in windows if w["action"] == "ClientProposal"]


def guarded_spec() -> str:
    """The etcd reference with the common guard of the original benchmark's specs in the
    target action itself (the reference keeps its bounds in Next)."""
    return replace_once(
        read_reference("etcd", "etcdraft.tla"),
        "  /\\ state[i] = Leader\n  /\\ logLen' =",
        "  /\\ state[i] = Leader\n  /\\ logLen[i] < MaxLogLen\n  /\\ logLen' =",
    )


def pinned_only(contract):
    """The contract as it was before `conformance_constants`: P3 at the pinned bounds."""
    kept = {
        name: dataclasses.replace(c, value=contract.constants[name])
        for name, c in contract.conformance_constants.items()
    }
    return dataclasses.replace(contract, conformance_constants=kept)


def test_every_pinned_bound_the_etcd_corpus_exceeds_is_raised_for_p3(etcd, proposals):
    longest = max(max(w["post_state"]["logLen"].values()) for w in proposals)
    assert longest == 11 and int(etcd.constants["MaxLogLen"]) < longest
    assert int(etcd.for_conformance().constants["MaxLogLen"]) > longest
    assert etcd.conformance_constants["MaxLogLen"].reason


@pytest.mark.tla
def test_a_spec_guarded_by_the_bound_passes_every_client_proposal(etcd, proposals):
    outcome = check_conformance(guarded_spec(), etcd, proposals)
    assert outcome.status == "ran"
    assert [(a.action, a.passed, a.total) for a in outcome.actions if a.total] == [
        ("ClientProposal", 29, 29)
    ]
    assert outcome.details["conformance_constants"]["MaxLogLen"]["value"] == "12"


@pytest.mark.tla
def test_a_window_a_pinned_bound_decides_says_so(etcd, proposals):
    outcome = check_conformance(guarded_spec(), pinned_only(etcd), proposals)
    failed = [w for w in outcome.windows if w.verdict != "pass"]
    assert len(failed) == 22
    assert all(BOUND_NOTE in w.reason and w.detail["bound"] for w in failed)
    passed = [w for w in outcome.windows if w.verdict == "pass"]
    assert all(max(w.post_state["logLen"].values()) <= 2 for w in passed)


@pytest.mark.tla
def test_a_failure_the_bound_does_not_explain_gets_no_bound_note(etcd, proposals):
    # Appending two entries for one proposal fails whatever the bound.
    spec = replace_once(
        guarded_spec(),
        "  /\\ logLen[i] < MaxLogLen\n  /\\ logLen' = [logLen EXCEPT ![i] = @ + 1]",
        "  /\\ logLen[i] < MaxLogLen\n  /\\ logLen' = [logLen EXCEPT ![i] = @ + 2]",
    )
    outcome = check_conformance(spec, pinned_only(etcd), proposals)
    assert all(w.verdict != "pass" for w in outcome.windows)
    assert not any("contract's bound" in w.reason for w in outcome.windows)


def write_contract(tmp_path, extra: str):
    source = load_contract("spin").directory
    folder = tmp_path / "spin"
    folder.mkdir()
    (folder / "description.md").write_text((source / "description.md").read_text())
    (folder / "task.yaml").write_text((source / "task.yaml").read_text() + extra)
    return tmp_path


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            "conformance_constants:\n  Nope: {value: '1', reason: r}\n",
            "conformance_constants.Nope: not a pinned constant",
        ),
        (
            "conformance_constants:\n  Threads: {value: '{\"0\"}'}\n",
            "conformance_constants.Threads: missing field(s) reason",
        ),
        (
            "conformance_constants:\n  Threads: {value: '{\"0\"}', reason: r, why: w}\n",
            "conformance_constants.Threads: unknown key(s) why",
        ),
    ],
)
def test_a_conformance_constant_must_be_a_pinned_one_with_value_and_reason(
    tmp_path, extra, message
):
    root = write_contract(tmp_path, extra)
    with pytest.raises(ContractError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_contract("spin", root)
