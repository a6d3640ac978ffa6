"""A spec written with the standard Unicode symbols (≜ ∧ ∈ ⟨ ⟩ ...) is read as its ASCII spelling:
the pinned SANY/TLC see ASCII on the submitter's own lines, strings and comments stay as written,
and junction lists stay the lists they were."""

import pytest

from evaluation import pipeline
from evaluation.inputs.contracts import TASKS_DATA_DIR, load_contract
from evaluation.tla import treesitter
from evaluation.tla.sandbox import run_sany
from evaluation.tla.unicode import TABLE, spell_out, to_ascii
from evaluation.upload.lint_process import check_isolated
from tests.fidelity.corpus import CORPUS, FIDELITY

SPIN = """---------------------------- MODULE spin ----------------------------
EXTENDS TLC, FiniteSets
CONSTANT Threads
VARIABLES lockState, pc, callType
vars ≜ ⟨lockState, pc, callType⟩
(* Lists start after `≜`: spelled `==`, their first bullet moves one column right. *)
Init ≜ ∧ lockState = "unlocked"
       ∧ pc = [t ∈ Threads ↦ "idle"]
       ∧ callType = [t ∈ Threads ↦ "none"]
StartLock(t) ≜ ∧ pc[t] = "idle"
               ∧ pc' = [pc EXCEPT ![t] = "acquiring"]
               ∧ callType' = [callType EXCEPT ![t] = "lock"]
               ∧ UNCHANGED lockState
AcquireLock(t) ≜ ∧ lockState = "unlocked"
                 ∧ pc[t] ∈ {"idle", "acquiring"}
                 ∧ lockState' = "locked"
                 ∧ pc' = [pc EXCEPT ![t] = "locked"]
                 ∧ ∨ ∧ pc[t] = "acquiring"
                     ∧ UNCHANGED callType
                   ∨ ∧ pc[t] = "idle"
                     ∧ ∃ c ∈ {"lock", "try_lock"} : callType' = [callType EXCEPT ![t] = c]
ReleaseLock(t) ≜ ∧ pc[t] = "locked"
                 ∧ lockState' = "unlocked"
                 ∧ pc' = [pc EXCEPT ![t] = "idle"]
                 ∧ callType' = [callType EXCEPT ![t] = "none"]
Next ≜ ∃ t ∈ Threads : StartLock(t) ∨ AcquireLock(t) ∨ ReleaseLock(t)
Spec ≜ Init ∧ □[Next]_vars
Exclusive ≜ ∀ a, b ∈ Threads : (pc[a] = "locked" ∧ pc[b] = "locked") ⇒ a = b
====
"""


def junction_shape(text: str) -> list[tuple[str, int, int]]:
    """Every conjunction/disjunction list as (kind, first line, items), in text order."""
    found = []

    def walk(node):
        if node.type in ("conj_list", "disj_list"):
            found.append((node.type, node.start_point.row, len(node.children)))
        for child in node.children:
            walk(child)

    walk(treesitter.parse(text.encode()).root_node)
    return found


# --- the rewrite itself ---------------------------------------------------------------------


@pytest.mark.parametrize("symbol", sorted(TABLE))
def test_each_standard_symbol_is_spelled_as_the_tables_ascii(symbol):
    result = to_ascii(f"A ≜ x {symbol} y\n")
    assert result.text == f"A == x {TABLE[symbol]} y\n"
    expected = {"≜": 1}
    expected[symbol] = expected.get(symbol, 0) + 1
    assert (result.symbols, result.counts) == (2, expected)
    assert TABLE[symbol].isascii()


def test_an_ascii_spec_is_returned_as_it_is():
    ascii_text = to_ascii(SPIN).text
    again = to_ascii(ascii_text)
    # Only the comment keeps its symbol.
    assert [line for line in ascii_text.split("\n") if not line.isascii()] == [
        line for line in SPIN.split("\n") if line.startswith("(*")
    ]
    assert again.text == ascii_text and again.symbols == 0 and again.summary()["symbols"] == {}


def test_strings_and_comments_keep_their_symbols():
    text = (
        'Msg ≜ "a ∧ b \\" ∈ still a string" \\* ∀ in a line comment\n'
        "(* ∃ (* nested ⟨ *) still a comment ≜ *) X ≜ 1 ∈ {1}\n"
        "(* a comment over\n   two lines ∪ *) Y ≜ 2\n"
    )
    lines = to_ascii(text).text.split("\n")
    assert lines[0] == 'Msg == "a ∧ b \\" ∈ still a string" \\* ∀ in a line comment'
    assert lines[1] == "(* ∃ (* nested ⟨ *) still a comment ≜ *) X == 1 \\in {1}"
    assert lines[2:4] == ["(* a comment over", "   two lines ∪ *) Y == 2"]


def test_other_non_ascii_characters_stay_for_sany_to_report():
    assert to_ascii("α ≜ 1 ◇ 2\n").text == "α == 1 ◇ 2\n"


def test_every_line_keeps_its_number():
    result = to_ascii(SPIN)
    assert result.text.count("\n") == SPIN.count("\n")
    for original, read in zip(SPIN.split("\n"), result.text.split("\n"), strict=True):
        # Same line: same words, in the same order.
        assert [w for w in original.split() if w.isalnum()] == [
            w for w in read.split() if w.isalnum()
        ]


def test_symbols_that_would_fuse_with_a_neighbour_get_a_space():
    assert to_ascii("x=⟨1⟩\n").text == "x= <<1>>\n"  # `=<<` would read as `=<` `<`
    assert to_ascii("∀x∈S:x∪T\n").text == "\\A x\\in S:x\\union T\n"  # not `\\inS`
    assert to_ascii("⟨⟨1⟩⟩_v\n").text == "<< <<1>> >>_v\n"


def test_junction_lists_stay_the_same_lists():
    text = (
        "Init ≜ ∧ x ∈ {1} ∪ {2}\n"
        "       ∧ y = ⟨1, 2⟩\n"
        "Next ≜ ∨ ∧ x' = x\n"
        "         ∧ UNCHANGED y\n"
        "       ∨ y' ≠ y\n"
        "Bar ≜ ∀ n ∈ Nat : ∧ n ∈\n"
        "                    Nat\n"
        "                  ∧ TRUE\n"
    )
    result = to_ascii(text)
    assert junction_shape(result.text) == junction_shape(text)
    assert result.realigned_lines > 0
    # Without the re-alignment the lists would fall apart (the check above can fail).
    assert junction_shape(spell_out(text)) != junction_shape(text)


# --- the real tools -------------------------------------------------------------------------


@pytest.mark.tla
def test_sany_reads_the_rewrite_and_would_not_read_the_bare_spelling():
    assert run_sany({"spin": to_ascii(SPIN).text}, "spin").status == "ok"
    assert run_sany({"spin": spell_out(SPIN)}, "spin").status != "ok"
    assert run_sany({"spin": SPIN}, "spin").status != "ok"


@pytest.mark.tla
def test_a_unicode_spec_passes_p1_and_p2_with_the_rewrite_recorded():
    contract = load_contract("spin")
    report = pipeline.score_spec(SPIN, contract, [], phases=("syntax", "runtime"))
    syntax, runtime = report.outcomes["syntax"], report.outcomes["runtime"]
    assert (syntax.status, syntax.score) == ("ran", 1.0), syntax.details
    assert syntax.details["unicode"]["symbols_rewritten"] == to_ascii(SPIN).symbols > 40
    assert (runtime.status, runtime.score) == ("ran", 1.0), runtime.details
    assert {a.action for a in runtime.actions} >= {"StartLock", "AcquireLock", "ReleaseLock"}


@pytest.mark.tla
def test_sany_messages_point_at_the_submitters_line():
    broken = SPIN.replace('∧ pc[t] = "locked"\n', "∧ pc[t] = Lockd\n")
    line = broken.split("\n").index("ReleaseLock(t) ≜ ∧ pc[t] = Lockd") + 1
    syntax = pipeline.score_spec(broken, load_contract("spin"), [], phases=("syntax",)).outcomes
    rows = {r["name"]: r for r in syntax["syntax"].details["definitions"]}
    assert rows["ReleaseLock"]["verdict"] == "error"
    assert f"line {line}" in rows["ReleaseLock"]["message"]


@pytest.mark.tla
def test_the_upload_lint_reads_the_rewrite():
    assert pipeline.lint(SPIN, load_contract("spin")) == ""
    # The site's check, in its child interpreter, with an adapter naming the spec's actions.
    adapter = "actions:\n  AcquireLock: AcquireLock(actor)\n  ReleaseLock: ReleaseLock(actor)\n"
    outcome = check_isolated(SPIN, adapter, "spin", TASKS_DATA_DIR, 60)
    assert (outcome.spec, outcome.adapter) == ("", "")


def test_the_pre_scan_sees_the_spelled_out_text():
    """`⟨` nests like `<<` and `¬` chains like `~`: the rewrite smuggles neither past the gate."""
    contract = load_contract("spin")
    deep = SPIN.replace("vars ≜ ⟨lockState, pc, callType⟩", "vars ≜ " + "⟨" * 150 + "⟩" * 150)
    assert "nests brackets more than" in pipeline.lint(deep, contract)
    chain = SPIN.replace("Spec ≜ Init", "Spec ≜ " + "¬ " * 150 + "Init")
    assert "prefix operators" in pipeline.lint(chain, contract)
    forged = SPIN.replace("Exclusive ≜", 'Forge ≜ TLCSet("exit", TRUE ∧ TRUE)\nExclusive ≜')
    assert "TLCSet is not allowed" in pipeline.lint(forged, contract)


@pytest.mark.tla
@pytest.mark.skipif(not FIDELITY.is_dir(), reason="fidelity corpus not present")
def test_the_deepseek_corpus_spec_now_parses():
    """It writes `∪` and `×` outside comments (P4 is reached: tests/test_fidelity_corpus_*.py)."""
    entry = next(e for e in CORPUS if e.name == "dqueue/specula/deepseek")
    report = pipeline.score_spec(
        entry.spec_path.read_text(), load_contract("dqueue"), [], phases=("syntax",)
    )
    syntax = report.outcomes["syntax"]
    assert syntax.score == 1.0, syntax.details
    assert syntax.details["unicode"]["symbols"] == {"×": 1, "∪": 2}
