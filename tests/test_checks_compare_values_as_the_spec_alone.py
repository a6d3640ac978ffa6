"""TLC compares the spec's values as it would on the spec alone, whatever the scorer's generated
modules mention; a comparison TLC cannot make even then is an error in TLC's own words.

TLC compares records field by field in the order the parser first met the field names and stops
at the first difference, so comparing a message whose `body` is a record with one whose `body`
is 0 fails only if `body` is reached before `kind`. Here the adapter names `body` and the spec
names `kind` first (raftkvs/gpt5 in the fidelity corpus: `cmd` is a record or `Nil == 0`)."""

from dataclasses import replace

import pytest

from evaluation.inputs.contracts import Invariant, SchemaVar, load_contract, parse_adapter
from evaluation.phases.invariants import check_invariants

pytestmark = pytest.mark.tla

# The fairness on Reply is checked as WF((Reply) /\ (Next)): on a Reply step, Tick's
# `UNCHANGED net` compares the request with the reply.
MIXED = """---- MODULE Mixed ----
EXTENDS Naturals
VARIABLES net, x
Request == [{first} |-> {first_value}, {second} |-> {second_value}]
Reply == [{first} |-> {first_reply}, {second} |-> {second_reply}]
Init == net = {{Request}} /\\ x = 0
Answer == Request \\in net /\\ net' = {{Reply}} /\\ UNCHANGED x
Tick == UNCHANGED net /\\ x' = (x + 1) % 3
Next == Answer \\/ Tick
Spec == Init /\\ [][Next]_<<net, x>> /\\ WF_<<net, x>>(Answer)
====
"""
FIELDS = {
    "kind": ('"req"', '"resp"'),
    "body": ("[v |-> 1]", "0"),
}
ADAPTER = """variables:
  bodies: '{m.body : m \\in net}'
  answered: '\\E m \\in net : m.kind = "resp"'
"""


def mixed_spec(first: str, second: str) -> str:
    return MIXED.format(
        first=first,
        second=second,
        first_value=FIELDS[first][0],
        second_value=FIELDS[second][0],
        first_reply=FIELDS[first][1],
        second_reply=FIELDS[second][1],
    )


@pytest.fixture(scope="module")
def contract():
    spin = load_contract("spin")
    return replace(
        spin,
        module="Mixed",
        constants={},
        schema={"bodies": SchemaVar("SUBSET Nat"), "answered": SchemaVar("BOOLEAN")},
        actions={},
        invariants=(
            Invariant(
                name="Answered", kind="liveness", definition="Answered == <>answered", template="t"
            ),
        ),
        excluded_invariants=(),
    )


def only_verdict(spec: str, contract):
    outcome = check_invariants(spec, contract, parse_adapter(ADAPTER, contract))
    (verdict,) = outcome.invariants
    return verdict


def test_names_the_adapter_mentions_first_do_not_make_the_spec_uncheckable(contract):
    verdict = only_verdict(mixed_spec("kind", "body"), contract)
    assert (verdict.verdict, verdict.reason) == ("holds", "")


def test_a_comparison_tlc_cannot_make_on_the_spec_alone_is_an_error_in_tlcs_words(contract):
    verdict = only_verdict(mixed_spec("body", "kind"), contract)
    assert verdict.verdict == "error"
    assert "Attempted to check equality of" in verdict.reason
    assert "with non-" in verdict.reason
    assert "This was probably caused" not in verdict.reason
    assert "TLC exited with" not in verdict.reason
