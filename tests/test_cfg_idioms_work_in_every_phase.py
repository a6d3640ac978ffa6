"""TLC's cfg idioms are the submitter's, not a reason to fail: `C = C` (a constant that is a
model value of its own name, `None = None`) works in every phase, and every other idiom of the
fidelity corpus's cfgs is either used or listed in `Adapter.ignored` with its reason."""

import pytest

from evaluation.inputs import adapter_text
from evaluation.inputs.contracts import adapter_with_cfg, parse_adapter
from evaluation.inputs.tlc_cfg import parse_cfg
from evaluation.pipeline import score_spec
from tests.conformance_support import replace_once, spin, spin_spec, spin_windows

CFG = 'SPECIFICATION Spec\nCONSTANTS\n    Threads = {"0", "1", "2"}\n    None = None\n'


def spec_with_none() -> str:
    """The spin reference plus a `holder` variable that is `None` when the lock is free."""
    spec = spin_spec()
    for old, new in (
        ("CONSTANT Threads", "CONSTANT Threads, None"),
        ("VARIABLES lockState, pc, callType", "VARIABLES lockState, pc, callType, holder"),
        ("vars == <<lockState, pc, callType>>", "vars == <<lockState, pc, callType, holder>>"),
        (
            '  /\\ callType = [t \\in Threads |-> "none"]\n\n',
            '  /\\ callType = [t \\in Threads |-> "none"]\n  /\\ holder = None\n\n',
        ),
        ("  /\\ UNCHANGED lockState\n", "  /\\ UNCHANGED <<lockState, holder>>\n"),
        ('  /\\ lockState\' = "locked"\n', "  /\\ lockState' = \"locked\"\n  /\\ holder' = t\n"),
        (
            '  /\\ lockState\' = "unlocked"\n',
            "  /\\ lockState' = \"unlocked\"\n  /\\ holder' = None\n",
        ),
    ):
        spec = replace_once(spec, old, new)
    return spec


def test_c_equals_c_is_a_model_value_the_spec_declares_not_a_definition():
    adapter = adapter_with_cfg(
        parse_adapter(None, spin()), parse_cfg(CFG), spin(), spec_with_none()
    )
    assert adapter.own_model_values == ("None",)
    assert "None" not in adapter.constants and "None" not in adapter.model_values
    assert "CONSTANT None = None" in adapter_text.model_value_cfg(adapter)
    assert not any("None" in line for line in adapter_text.prelude(adapter, "_h_"))


def test_an_adapter_constant_assigned_its_own_name_is_the_same_idiom():
    adapter = parse_adapter("constants:\n  None: None\n", spin())
    assert adapter.own_model_values == ("None",) and "None" not in adapter.constants


@pytest.mark.tla
def test_a_cfg_with_none_equals_none_scores_every_phase():
    report = score_spec(spec_with_none(), spin(), spin_windows(), cfg_text=CFG)
    for phase, outcome in report.outcomes.items():
        assert outcome.status == "ran", (phase, outcome.details.get("error"))
    assert report.outcomes["runtime"].score == 1.0
    assert report.outcomes["invariant"].score == 1.0


# Every idiom the fidelity corpus's cfgs use (fidelity/spec*/**/*.cfg), in one file.
CORPUS_IDIOMS = """SPECIFICATION Spec
CONSTANTS
    Servers = {s1, s2, s3}
    Nil = 0
    Name = "p"
    Flag = FALSE
    Null = null
    Helper <- MyHelper
    None = None
CONSTANT Threads = {t1, t2}
INVARIANTS RWMInvariant
INVARIANT
    TypeOK
    Safe
PROPERTY Live
PROPERTIES Other
CONSTRAINT StateConstraint
CHECK_DEADLOCK TRUE
"""
SPEC = """---- MODULE spin ----
CONSTANTS Threads, Servers, Nil, Name, Flag, Null, Helper, None
MyHelper == 1
====
"""


def test_every_corpus_idiom_is_used_or_ignored_with_a_reason():
    adapter = adapter_with_cfg(parse_adapter(None, spin()), parse_cfg(CORPUS_IDIOMS), spin(), SPEC)
    assert adapter.constants == {
        "Servers": "{s1, s2, s3}",
        "Nil": "0",
        "Name": '"p"',
        "Flag": "FALSE",
        "Null": "null",
        "Helper": "MyHelper",
    }
    assert adapter.model_values == ("s1", "s2", "s3", "null")
    assert adapter.own_model_values == ("None",)
    assert adapter.behaviour == {"specification": "Spec"}
    ignored = {i["entry"]: i["reason"] for i in adapter.ignored}
    assert set(ignored) == {
        "INVARIANT RWMInvariant",
        "INVARIANT TypeOK",
        "INVARIANT Safe",
        "PROPERTY Live",
        "PROPERTY Other",
        "CONSTRAINT StateConstraint",
        "CHECK_DEADLOCK TRUE",
        "Threads = {t1, t2}",
    }
    assert all(reason for reason in ignored.values())
    assert "pins Threads" in ignored["Threads = {t1, t2}"]
