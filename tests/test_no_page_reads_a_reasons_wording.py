"""No page, export or job of the site decides anything from the wording of a reason, a failure
or a log line: results carry their meaning in typed fields (`credit`, `RunEvent.event`, hints),
and prose is for the reader (docs/decisions/0024-typed-credit-and-run-history.md). A prefix test
on such text is how the site used to tell credit decisions apart; rewording a message then
changed a page. Data migrations are exempt: reading the words old scorers wrote, once, is their
job."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = [ROOT / "leaderboard", ROOT / "config"]
# What a receiver's source text names when it is prose a result or a run carries.
PROSE = re.compile(r"reason|failure|message|log|note|why|hint", re.IGNORECASE)
CALLS = {"startswith", "endswith", "removeprefix", "removesuffix"}


def wording_tests(source: str) -> list[str]:
    """`x.startswith(...)`-like calls whose receiver names prose, as source text."""
    found = []
    nodes = list(ast.walk(ast.parse(source)))
    for node in nodes:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in CALLS
            and PROSE.search(ast.unparse(node.func.value))
        ):
            found.append(ast.unparse(node))
    # `"…" in reason` reads the wording too.
    for node in nodes:
        if (
            isinstance(node, ast.Compare)
            and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
            and any(PROSE.search(ast.unparse(c)) for c in node.comparators)
        ):
            found.append(ast.unparse(node))
    return found


def _site_modules() -> list[Path]:
    return sorted(
        path
        for root in SITE
        for path in root.rglob("*.py")
        if "migrations" not in path.parts and "__pycache__" not in path.parts
    )


def test_the_check_sees_a_planted_wording_test():
    planted = (
        "def kind(row):\n"
        "    if row.reason.startswith('vacuous'):\n"
        "        return 'vacuous'\n"
        "    return 'requeued' if 're-queued' in run.log else ''\n"
    )
    assert wording_tests(planted) == [
        "row.reason.startswith('vacuous')",
        "'re-queued' in run.log",
    ]
    assert wording_tests("ok = path.endswith('.tla') and name.startswith('_')\n") == []


def test_no_site_module_decides_from_a_reasons_wording():
    modules = _site_modules()
    assert len(modules) > 50
    offending = {
        str(path.relative_to(ROOT)): found
        for path in modules
        if (found := wording_tests(path.read_text()))
    }
    assert offending == {}
