"""The two D1 specs (docs/decisions/0004-work-bounds-not-time.md), rebuilt from its description (no
Django: bench/work_bounds.py reads them too): the spin reference with an INIT of 2×10⁹ states, and
with `ASSUME PrintT(Big)` over 12,000 strings of 3,900 characters."""

from pathlib import Path

SPIN = Path(__file__).resolve().parent.parent / "tasks_data" / "spin" / "reference" / "spin.tla"
NATURALS = ("EXTENDS TLC, FiniteSets", "EXTENDS TLC, FiniteSets, Naturals")
WIDE_INIT = (
    "WideInit ==\n"
    "  /\\ lockState \\in 1..2000000000\n"
    '  /\\ pc = [t \\in Threads |-> "idle"]\n'
    '  /\\ callType = [t \\in Threads |-> "none"]\n\n'
)
WIDE_CFG = "INIT WideInit\nNEXT Next\n"
PRINTER = (
    f'BigString == "{"x" * 3900}"\nBig == [i \\in 1..12000 |-> BigString]\nASSUME PrintT(Big)\n\n'
)


def with_definitions(definitions: str) -> str:
    """The spin reference (with Naturals) with `definitions` just before its Init."""
    text = SPIN.read_text().replace(*NATURALS, 1).replace("\nInit ==", f"\n{definitions}Init ==", 1)
    assert definitions in text  # the reference still has the shape this edit expects
    return text
