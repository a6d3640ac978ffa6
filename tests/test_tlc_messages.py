"""TLC `-tool` output parsing: real blocks become messages, text a spec printed stays data."""

import pytest

from evaluation.tla.codes import EC
from evaluation.tla.messages import errors, first, last, parse_messages
from evaluation.tla.sandbox import Limits, run_tlc


def block(code: int, severity: int, text: str) -> str:
    return f"@!@!@STARTMSG {code}:{severity} @!@!@\n{text}\n@!@!@ENDMSG {code} @!@!@\n"


def test_well_formed_blocks_in_order_with_code_severity_and_text():
    output = (
        "untagged SANY chatter\n"
        + block(2262, 0, "TLC2 Version 2.15")
        + block(2199, 0, "3 states generated, 3 distinct states found, 0 states left on queue.")
        + block(2199, 0, "4 states generated, 4 distinct states found, 0 states left on queue.")
    )
    messages = parse_messages(output)
    assert [(m.code, m.severity) for m in messages] == [(2262, 0), (2199, 0), (2199, 0)]
    assert messages[0].text == "TLC2 Version 2.15"
    assert first(messages, EC.TLC_STATS).text.startswith("3 states")
    assert last(messages, EC.TLC_STATS).text.startswith("4 states")
    assert messages[1].severity_name == "info"


def test_nested_message_is_its_own_message_and_part_of_its_parent():
    output = (
        "@!@!@STARTMSG 1000:1 @!@!@\n"
        "TLC threw an unexpected exception.\n"
        "The exception was a tlc2.tool.EvalException\n"
        ": @!@!@STARTMSG 2184:0 @!@!@\n"
        "Attempted to apply Tail to the empty sequence.\n"
        "@!@!@ENDMSG 2184 @!@!@\n"
        "@!@!@ENDMSG 1000 @!@!@\n" + block(2103, 1, "0. Line 5, column 9 to line 5, column 47 in P")
    )
    messages = parse_messages(output)
    assert [m.code for m in messages] == [1000, 2184, 2103]
    outer, inner = messages[0], messages[1]
    assert inner.text == "Attempted to apply Tail to the empty sequence."
    assert outer.text.endswith("EvalException\n: Attempted to apply Tail to the empty sequence.")
    assert "@!@!@" not in outer.text
    assert [m.code for m in errors(messages)] == [1000, 2103]


def test_markers_inside_print_output_are_data():
    # What TLC prints for PrintT("@!@!@STARTMSG 2193:0 @!@!@") and friends: quoted values.
    printed = (
        '"@!@!@STARTMSG 2193:0 @!@!@"\n'
        '"Model checking completed. No error has been found."\n'
        '<<"@!@!@ENDMSG 2193 @!@!@">>\n'
        '  "@!@!@STARTMSG 2199:0 @!@!@\\n0 states left on queue.\\n@!@!@ENDMSG 2199 @!@!@"\n'
    )
    output = block(2190, 0, "Finished computing initial states") + printed
    output += block(2110, 1, "Invariant Inv is violated.")
    messages = parse_messages(output)
    assert [m.code for m in messages] == [2190, 2110]
    assert first(messages, EC.TLC_SUCCESS) is None


def test_unclosed_forged_start_cannot_swallow_real_messages():
    # Even a start marker at a line start that is never closed must not hide what follows.
    output = "@!@!@STARTMSG 2193:0 @!@!@\nforged\n" + block(2110, 1, "Invariant Inv is violated.")
    messages = parse_messages(output)
    assert [(m.code, m.text) for m in messages] == [(2110, "Invariant Inv is violated.")]
    stray_end = "@!@!@ENDMSG 2193 @!@!@\n" + block(2262, 0, "v")
    assert [m.code for m in parse_messages(stray_end)] == [2262]


@pytest.mark.tla
def test_real_tlc_output_keeps_print_forgery_as_data():
    spec = (
        "---- MODULE Pf ----\nEXTENDS Naturals, Sequences, TLC\nVARIABLE x\n"
        'Init == x = 0 /\\ PrintT("@!@!@STARTMSG 2193:0 @!@!@")\n'
        '  /\\ PrintT("No error has been found.") /\\ PrintT(<<"@!@!@ENDMSG 2193 @!@!@">>)\n'
        "Next == x' = x + 1 /\\ (x = 2 => Tail(<<>>) = 1)\n====\n"
    )
    run = run_tlc({"Pf": spec}, "Pf", "INIT Init\nNEXT Next\n", ["-deadlock"], Limits(30))
    assert run.exit_code == 75, run.output[-2000:]
    assert first(run.messages, EC.TLC_SUCCESS) is None
    eval_error = first(run.messages, 1000)
    assert "Attempted to apply Tail to the empty sequence" in eval_error.text
    assert first(run.messages, 2184) is not None
