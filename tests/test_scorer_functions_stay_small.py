"""The scorer's functions stay small enough to read: radon ranks none of them E or F
(cyclomatic complexity above 30) and at most five D (21-30), as `radon cc -s -n D evaluation`
shows. A function that grows past that is split into named pieces, as P3's were
(docs/decisions/0036-the-scorer-as-a-table.md)."""

from pathlib import Path

from radon.complexity import cc_rank, cc_visit
from radon.visitors import Class, Function

REPO = Path(__file__).resolve().parent.parent
MOST_D = 5


def ranked(code: str) -> list[tuple[str, str]]:
    """(name, rank) of every function and method in `code`, as radon's `cc` lists them."""
    found: list[tuple[str, str]] = []
    for block in cc_visit(code):
        blocks = block.methods if isinstance(block, Class) else [block]
        found.extend((b.fullname, cc_rank(b.complexity)) for b in blocks if isinstance(b, Function))
    return found


def test_the_ranking_sees_a_complex_function():
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(35))
    assert ranked(f"def tangled(x):\n{branches}\n    return -1\n") == [("tangled", "E")]


def test_no_scorer_function_is_ranked_e_or_f_and_few_are_d():
    ranks = {
        f"{path.relative_to(REPO)}:{name}": rank
        for path in sorted((REPO / "evaluation").rglob("*.py"))
        for name, rank in ranked(path.read_text())
    }
    assert [where for where, rank in ranks.items() if rank in "EF"] == []
    d_ranked = [where for where, rank in ranks.items() if rank == "D"]
    assert len(d_ranked) <= MOST_D, d_ranked
