"""Our SequencesExt/FiniteSetsExt/Functions/Folds: every operator checked by real TLC."""

from pathlib import Path

import pytest

from evaluation.inputs.contracts import make_contract
from evaluation.phases.syntax import check_syntax
from evaluation.tla.sandbox import Limits, run_tlc

pytestmark = pytest.mark.tla

CHECKS = Path(__file__).parent / "specs" / "CommunityModulesCheck.tla"
CFG = "INIT Init\nNEXT Next\n"


def test_every_operator_matches_its_documented_meaning():
    run = run_tlc(
        {"CommunityModulesCheck": CHECKS.read_text()},
        "CommunityModulesCheck",
        CFG,
        ["-deadlock"],
        Limits(wall_seconds=60),
    )
    assert run.status == "ok", run.output[-3000:]


def test_a_wrong_expectation_fails_the_check():
    text = CHECKS.read_text().replace(
        "ASSUME Last(<<1, 2, 3>>) = 3", "ASSUME Last(<<1, 2, 3>>) = 2"
    )
    run = run_tlc(
        {"CommunityModulesCheck": text},
        "CommunityModulesCheck",
        CFG,
        ["-deadlock"],
        Limits(wall_seconds=60),
    )
    assert run.exit_code == 10 and run.status == "error"


def test_helpers_stay_local_so_specs_may_define_them():
    spec = (
        "---- MODULE own ----\nEXTENDS Naturals, Sequences, SequencesExt\n"
        "Max(S) == CHOOSE m \\in S : \\A n \\in S : m >= n\nMin(S) == 0\n"
        "Range(f) == {f[i] : i \\in DOMAIN f}\nIsInjective(f) == TRUE\nMinOf(S) == 0\n"
        "Top == Last(<<Max({1, 2})>>)\n====\n"
    )
    assert check_syntax(spec, make_contract()).score == 1.0
