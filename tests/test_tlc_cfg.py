"""A submitter's TLC cfg is read into what the scorer uses (constants, model values,
substitutions, behaviour) and what it ignores, each ignored entry with its reason."""

import pytest

from evaluation.inputs.contracts import adapter_with_cfg, load_contract, parse_adapter
from evaluation.inputs.tlc_cfg import CfgError, parse_cfg

ETCD_CFG = """SPECIFICATION Spec
\\* a comment
CONSTANTS
    Servers = {s1, s2, s3}
    InitialLearners = {s1}
    Limit = 3  (* block
    comment *)  Name = "x y"
    Flag = TRUE
    Helper <- MyHelper
INVARIANTS
    ElectionSafety
    LogMatching
PROPERTY EventuallyElectLeader
CONSTRAINT StateConstraint
CHECK_DEADLOCK TRUE
"""


def test_constants_model_values_substitutions_and_behaviour_are_read():
    cfg = parse_cfg(ETCD_CFG)
    assert cfg.constants == {
        "Servers": "{s1, s2, s3}",
        "InitialLearners": "{s1}",
        "Limit": "3",
        "Name": '"x y"',
        "Flag": "TRUE",
    }
    assert cfg.model_values == ["s1", "s2", "s3"]
    assert cfg.substitutions == {"Helper": "MyHelper"}
    assert cfg.specification == "Spec" and cfg.init is None


def test_everything_else_is_ignored_with_its_reason_and_line():
    ignored = {i["entry"]: i for i in parse_cfg(ETCD_CFG).ignored}
    assert set(ignored) == {
        "INVARIANT ElectionSafety",
        "INVARIANT LogMatching",
        "PROPERTY EventuallyElectLeader",
        "CONSTRAINT StateConstraint",
        "CHECK_DEADLOCK TRUE",
    }
    assert "contract decides" in ignored["INVARIANT LogMatching"]["reason"]
    assert "not supported by the pinned TLC" in ignored["CHECK_DEADLOCK TRUE"]["reason"]
    assert ignored["CONSTRAINT StateConstraint"]["line"] == 14


def test_nested_sets_and_negative_numbers():
    cfg = parse_cfg("CONSTANT S = {{a, b}, {}}\nCONSTANT N = -1\nINIT I NEXT N2")
    assert cfg.constants == {"S": "{{a, b}, {}}", "N": "-1"}
    assert cfg.model_values == ["a", "b"]
    assert (cfg.init, cfg.next) == ("I", "N2")


@pytest.mark.parametrize(
    "text, where",
    [
        ("Servers = {s1}", "line 1"),
        ("CONSTANTS\n  X = {a, b", "line 2"),
        ("CONSTANTS\n  X", "line 2"),
        ("INIT Init\nINIT Other", "line 2"),
        ("CONSTANTS X = [a |-> 1]", "line 1"),
    ],
)
def test_unreadable_cfg_is_refused_with_its_line(text, where):
    with pytest.raises(CfgError, match=where):
        parse_cfg(text)


def test_cfg_completes_the_adapter_for_what_the_contract_does_not_pin():
    contract = load_contract("etcd")
    spec = "---- MODULE 1_etcdraft ----\nCONSTANTS Servers, InitialLearners, Server\n====\n"
    cfg = parse_cfg(ETCD_CFG + "CONSTANT Server = {1}\n")
    adapter = adapter_with_cfg(parse_adapter("", contract), cfg, contract, spec)
    assert adapter.constants == {"Servers": "{s1, s2, s3}", "InitialLearners": "{s1}"}
    assert adapter.model_values == ("s1", "s2", "s3")
    assert adapter.behaviour == {"specification": "Spec"}
    reasons = {i["entry"]: i["reason"] for i in adapter.ignored}
    assert reasons["Server = {1}"] == "the task contract pins Server"
    assert reasons["Limit = 3"] == "the spec declares no constant Limit"
    # Each ignored assignment is named by its cfg line, like the ignored sections.
    lines = {i["entry"]: i["line"] for i in adapter.ignored}
    assert (lines["Server = {1}"], lines["Limit = 3"], lines['Name = "x y"']) == (16, 6, 7)
    assert not adapter.identity


def test_the_adapters_own_constants_win_over_the_cfg():
    contract = load_contract("mutex")
    spec = "---- MODULE m ----\nCONSTANTS NumProcs\n====\n"
    adapter = parse_adapter("constants: {NumProcs: 3}", contract)
    merged = adapter_with_cfg(adapter, parse_cfg("CONSTANTS NumProcs = 2"), contract, spec)
    assert merged.constants == {"NumProcs": "3"}
    assert merged.ignored[-1]["reason"] == "the adapter assigns it"
