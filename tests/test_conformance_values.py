"""Window values are checked against the contract vocabulary before TLC sees them, and values
read back from TLC keep model values apart from strings."""

from evaluation.phases.conformance.cases import Case, negative_cases
from evaluation.phases.conformance.diagnose import differences, same
from evaluation.phases.conformance.vocab import FuncSet, Unknown, parse_vocab, schema_vocab
from evaluation.tla.tlcvalue import ModelValue, parse_tlc_value, to_json_like
from tests.conformance_support import spin

CONSTANTS = {"Servers": '{"s1", "s2"}', "PRODUCER": '"0"', "MaxValue": "3"}


def test_spin_vocabulary_accepts_trace_values_and_rejects_others():
    vocab = schema_vocab(spin())
    assert vocab["lockState"].check("locked", "x") == ""
    assert "not one of" in vocab["lockState"].check("LOCKED", "x")
    assert vocab["pc"].check({"0": "idle", "2": "locked"}, "pc") == ""
    assert "outside the domain" in vocab["pc"].check({"7": "idle"}, "pc")
    assert "is not a function" in vocab["pc"].check("idle", "pc")


def test_vocabulary_forms_used_by_contracts():
    counters = parse_vocab("[{PRODUCER} -> 1..(MaxValue + 1)]", CONSTANTS)
    assert isinstance(counters, FuncSet)
    assert counters.codomain.finite() == [1, 2, 3, 4]
    assert counters.check({"0": 4}, "s") == ""
    assert "not in 1..4" in counters.check({"0": 5}, "s")
    # Python's True == 1 must not leak into TLA+ membership.
    assert parse_vocab("{1, 2}", {}).check(True, "v") != ""
    assert (
        parse_vocab('[Servers -> Servers \\cup {"None"}]', CONSTANTS).check({"s1": "None"}, "v")
        == ""
    )
    records = parse_vocab("Seq([mtype: STRING, msource: Servers])", CONSTANTS)
    assert records.check([{"mtype": "x", "msource": "s1", "extra": [1]}], "n") == ""
    assert records.check([{"mtype": 3, "msource": "s1"}], "n") != ""
    assert isinstance(parse_vocab("Foo(Bar)", CONSTANTS), Unknown)


def test_model_values_never_equal_strings():
    value = parse_tlc_value('<< "locked", locked, ("0" :> idle @@ "1" :> "idle") >>')
    assert value[0] == "locked" and value[1] == ModelValue("locked")
    assert not same(to_json_like(value)[1], "locked")
    diff = differences({"pc": to_json_like(value)[2]}, {"pc": {"0": "idle", "1": "idle"}})
    assert [d["key"] for d in diff] == ["0"]


def test_pretty_printed_multiline_values_parse():
    text = '<< "t",\n   2,\n   << "locked",\n      ("1" :> "idle" @@ "0" :> "idle") >> >>'
    assert to_json_like(parse_tlc_value(text)) == ["t", 2, ["locked", {"1": "idle", "0": "idle"}]]


def test_negative_windows_exclude_observed_posts_and_are_deterministic():
    vocab = schema_vocab(spin())
    pre = {"lockState": "unlocked", "pc": {"0": "idle", "1": "acquiring", "2": "idle"}}
    post = {"lockState": "locked", "pc": {"0": "idle", "1": "locked", "2": "idle"}}
    other = {"lockState": "unlocked", "pc": {"0": "idle", "1": "acquiring", "2": "idle"}}
    real = [
        Case("a", "AcquireLock", "1", None, pre, post),
        Case("b", "AcquireLock", "1", None, pre, other),
    ]
    first = negative_cases(real, vocab)
    assert [c.key for c in first] == [c.key for c in negative_cases(real, vocab)]
    posts = [c.post for c in first if c.kind == "neg-post"]
    assert posts and post not in posts and other not in posts
    for case in first:
        if case.kind == "neg-step":
            assert case.pre != pre  # never from a state the action was observed to start from
