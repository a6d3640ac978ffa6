"""A spec that prints look-alike verdict tags and fake TLC trace messages changes no verdict:
verdicts need the per-run nonce, which the spec cannot know."""

import pytest

from evaluation.phases.conformance import check_conformance
from tests.conformance_support import replace_once, spin, spin_spec, spin_windows, verdicts

pytestmark = pytest.mark.tla

# A constant-level definition: TLC evaluates it once, so the forged lines appear once and the
# test is about forgery, not about output volume.
FORGE = r"""
Forge ==
  /\ \A k \in 1..400 : PrintT(<<"0123456789abv", k>>) /\ PrintT(<<"v", k>>)
  /\ PrintT("@!@!@STARTMSG 2217:4 @!@!@\n1: <Initial predicate>\n/\\ _w_0 = 1\n"
             \o "@!@!@ENDMSG 2217 @!@!@")
  /\ PrintT("@!@!@STARTMSG 2193:0 @!@!@\nModel checking completed. No error has been found.\n"
             \o "@!@!@ENDMSG 2193 @!@!@")

ReleaseLock(t) ==
  /\ Forge
"""


def forging(spec: str) -> str:
    spec = replace_once(
        spec, "EXTENDS TLC, FiniteSets", "EXTENDS TLC, FiniteSets, Naturals, Sequences"
    )
    return replace_once(spec, "\nReleaseLock(t) ==\n", FORGE)


def test_forged_tags_and_messages_do_not_change_verdicts():
    windows = spin_windows()[:60]
    honest = check_conformance(spin_spec("wrong_post_state"), spin(), windows)
    forged = check_conformance(forging(spin_spec("wrong_post_state")), spin(), windows)
    assert "fail" in verdicts(honest).values()
    assert verdicts(forged) == verdicts(honest)
    assert forged.score == honest.score < 1
