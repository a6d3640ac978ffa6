"""Every example of docs/ADAPTERS.md runs as written and gets the message the page shows.

The page marks each example with an HTML comment before its ```yaml block,
`<!-- example: NAME; at: upload|scoring; spec: SPEC; ... -->`, and shows the scorer's message in
the ```text block right after it ("..." stands for a part left out; line breaks are spaces).
SPEC is a ```tla block of the page marked `<!-- spec: NAME -->` or a path in the repository (the
spin reference by default). Upload examples go through the check the site runs
(`check_isolated`); scoring examples must pass that check and then go through P3 with real TLC
on the first 40 spin windows. Further keys: `rule` (the state mapping is refused by it),
`scores like` (the same verdicts as that spec, or `no adapter`: this spec without the adapter)
and `score`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from evaluation.inputs.contracts import TASKS_DATA_DIR, parse_adapter
from evaluation.phases.conformance import check_conformance
from evaluation.results import PhaseOutcome
from evaluation.upload.lint_process import check_isolated
from tests.conformance_support import spin, spin_windows

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ADAPTERS.md"
REFERENCE = "tasks_data/spin/reference/spin.tla"
KEYS = {"example", "at", "spec", "rule", "scores like", "score"}
FENCE = re.compile(
    r"(?:^<!-- (?P<marker>.*?) -->\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```$", re.M | re.S
)
LINT_SECONDS = 60
WINDOWS = 40  # the first spin windows, both actions: P3 in a few seconds per spec


@dataclass
class Example:
    name: str
    keys: dict[str, str]
    adapter: str
    message: str | None = None


def _marker(text: str) -> dict[str, str]:
    keys = {}
    for part in text.split(";"):
        key, _, value = part.partition(":")
        keys[key.strip()] = value.strip()
    return keys


def read_page(text: str) -> tuple[dict[str, str], list[Example], int]:
    """(spec name -> text, the examples, how many ```yaml blocks the page has)."""
    specs: dict[str, str] = {}
    examples: list[Example] = []
    yaml_blocks = 0
    last: Example | None = None
    end = 0
    for match in FENCE.finditer(text):
        marker, lang, body = match["marker"], match["lang"], match["body"]
        keys = _marker(marker) if marker else {}
        yaml_blocks += lang == "yaml"
        # A message is the ```text block that starts where its example's block ends.
        adjacent = not text[end : match.start()].strip()
        end = match.end()
        if "spec" in keys and len(keys) == 1 and lang == "tla":
            specs[keys["spec"]] = body
        elif "example" in keys and lang == "yaml":
            last = Example(keys["example"], keys, body)
            examples.append(last)
            continue
        elif lang == "text" and last is not None and not marker and adjacent:
            last.message = body
        last = None
    return specs, examples, yaml_blocks


SPECS, EXAMPLES, YAML_BLOCKS = read_page(DOC.read_text())
BY_NAME = {e.name: e for e in EXAMPLES}
UPLOAD = [e.name for e in EXAMPLES if e.keys["at"] == "upload"]
SCORING = [e.name for e in EXAMPLES if e.keys["at"] == "scoring"]


def spec_text(name: str) -> str:
    return SPECS[name] if name in SPECS else (ROOT / name).read_text()


def spec_of(example: Example) -> str:
    return spec_text(example.keys.get("spec", REFERENCE))


def shows(documented: str, actual: str) -> bool:
    """The documented message is the actual one, "..." standing for any text, line breaks and
    runs of spaces for one space."""
    pieces = [re.escape(" ".join(p.split())) for p in documented.split("...")]
    return re.fullmatch(".*?".join(pieces), " ".join(actual.split()), re.S) is not None


def test_the_page_marks_every_yaml_block_as_an_example_with_a_known_stage():
    assert YAML_BLOCKS == len(EXAMPLES) == len(BY_NAME)
    assert all(set(e.keys) <= KEYS for e in EXAMPLES), [e.keys for e in EXAMPLES]
    assert {e.keys["at"] for e in EXAMPLES} <= {"upload", "scoring"}
    assert {"lock.tla", "flag.tla"} <= set(SPECS)
    # The refusals the page promises to show, each by the kind of check that makes it.
    assert len(UPLOAD) >= 8 and len(SCORING) >= 3
    for example in EXAMPLES:
        name = example.keys.get("spec", REFERENCE)
        assert name in SPECS or (ROOT / name).is_file(), name
    for example in EXAMPLES:
        if example.keys["at"] == "upload" or "rule" in example.keys:
            assert example.message, f"{example.name}: a refusal shows its message"


def test_the_matcher_needs_the_whole_message():
    assert shows("a ... c", "a b c") and shows("a\nb", "a  b")
    assert not shows("a b", "a b c") and not shows("b c", "a b c")


def test_the_paths_the_page_names_exist_and_the_page_is_linked():
    for path in re.findall(r"`((?:tests|tasks_data|docs|evaluation)/[\w./-]+)`", DOC.read_text()):
        if "<" not in path:
            assert (ROOT / path).exists(), path
    assert "docs/ADAPTERS.md" in (ROOT / "README.md").read_text()
    assert "docs/ADAPTERS.md" in (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    # The run page's label for a refused state mapping, as the page quotes it.
    assert (
        "Adapter state mapping not used:"
        in (ROOT / "templates" / "leaderboard" / "run_detail.html").read_text()
    )


@pytest.mark.tla
@pytest.mark.parametrize("name", UPLOAD)
def test_an_upload_example_gets_the_documented_answer(name):
    example = BY_NAME[name]
    outcome = check_isolated(
        spec_of(example), example.adapter, "spin", TASKS_DATA_DIR, LINT_SECONDS
    )
    assert outcome.spec == "" and outcome.cfg == "", outcome
    if example.message is None:
        assert outcome.adapter == ""
    else:
        assert shows(example.message, outcome.adapter), outcome.adapter


@cache
def _scored(spec: str, adapter: str | None = None) -> PhaseOutcome:
    parsed = parse_adapter(adapter, spin()) if adapter else None
    return check_conformance(spec, spin(), spin_windows()[:WINDOWS], parsed)


def _verdicts(outcome: PhaseOutcome) -> dict[str, str]:
    return {w.window_id: w.verdict for w in outcome.windows}


@pytest.mark.tla
@pytest.mark.parametrize("name", SCORING)
def test_a_scoring_example_passes_the_upload_and_p3_says_what_the_page_shows(name):
    example = BY_NAME[name]
    spec = spec_of(example)
    upload = check_isolated(spec, example.adapter, "spin", TASKS_DATA_DIR, LINT_SECONDS)
    assert (upload.spec, upload.adapter, upload.cfg) == ("", "", ""), upload
    outcome = _scored(spec, example.adapter)
    assert outcome.status == "ran", outcome.details
    mapping = outcome.details.get("state_mapping")
    if "rule" in example.keys:
        assert mapping is not None and mapping["credited"] == []
        assert [r["rule"] for r in mapping["refused"]] == [example.keys["rule"]]
        said = [mapping["refused"][0]["text"]]
    else:
        assert mapping is None or mapping["refused"] == []
        said = [w.reason for w in outcome.windows]
    if example.message is not None:
        assert any(shows(example.message, text) for text in said), said[:3]
    like = example.keys.get("scores like")
    if like:
        other = _scored(spec if like == "no adapter" else spec_text(like))
        assert _verdicts(outcome) == _verdicts(other)
        assert outcome.score == other.score
    if "score" in example.keys:
        assert outcome.score == float(example.keys["score"])
