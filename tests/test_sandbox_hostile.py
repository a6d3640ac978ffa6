"""A hostile spec can neither run code, forge a verdict, nor outlive its budget."""

import os
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from evaluation.tla.parsed import spec_of
from evaluation.tla.sandbox import Limits, SandboxError, precheck_spec, run_sany, run_tlc
from evaluation.tla.sandbox.precheck import TLCSET, listing_of, strip_comments, uses_tlcset

pytestmark = pytest.mark.tla

CFG = "INIT Init\nNEXT Next\n"


def spec(name: str, body: str, extends: str = "Naturals, TLC") -> str:
    return f"---- MODULE {name} ----\nEXTENDS {extends}\nVARIABLE x\n{body}\n====\n"


def test_class_override_beside_spec_never_runs(tmp_path):
    marker = tmp_path / "marker.txt"
    java = tmp_path / "Evil.java"
    java.write_text(
        "public class Evil { static { try { java.nio.file.Files.writeString("
        f'java.nio.file.Path.of("{marker}"), "ran"); }} catch (Exception e) {{}} }} '
        "public static tlc2.value.impl.Value Foo() { return tlc2.value.impl.BoolValue.ValTrue; } }"
    )
    jar = __import__("evaluation.tla.tools", fromlist=["jar_path"]).jar_path()
    subprocess.run(["javac", "-cp", jar, "-d", str(tmp_path), str(java)], check=True)
    assert (tmp_path / "Evil.class").exists()
    (tmp_path / "Evil.tla").write_text("---- MODULE Evil ----\nFoo == TRUE\n====\n")
    main = spec("Main", "Init == x = 0 /\\ Foo\nNext == UNCHANGED x", "Naturals, TLC, Evil")
    (tmp_path / "Main.tla").write_text(main)
    # What a caller can hand over: module texts only; the .class beside them stays behind.
    modules = {p.stem: p.read_text() for p in tmp_path.glob("*.tla")}
    run = run_tlc(modules, "Main", CFG, ["-deadlock"], Limits(wall_seconds=30))
    assert run.status == "ok", run.output[-2000:]
    assert "operator override" not in run.output
    assert not marker.exists()
    with pytest.raises(SandboxError):
        run_sany({"Evil.class": "x"}, "Evil.class")
    with pytest.raises(SandboxError):
        run_sany({"../Evil": "x"}, "../Evil")


def test_tlcset_exit_is_refused():
    forged = spec("Forge", 'Init == x = 0\nNext == x\' = x + 1 /\\ TLCSet("exit", TRUE)')
    run = run_tlc({"Forge": forged}, "Forge", CFG, [], Limits(wall_seconds=30))
    assert run.status == "error" and "TLCSet" in run.note
    assert any("TLCSet" in r for r in precheck_spec(forged))


def test_a_parsed_spec_spares_only_the_parse_of_its_own_text():
    clean = spec("Forge", "Init == x = 0\nNext == x' = x + 1")
    # The string stripped first swallows TLCSet, which tree-sitter reads after a comment: only
    # the parsed half of the scan sees it.
    hidden = spec("Forge", 'Init == x = 0\nNext == x\' = x + 1 /\\ (* " *) TLCSet("exit", TRUE)')
    assert not TLCSET.search(strip_comments(hidden))
    parsed = spec_of(clean)
    assert listing_of(clean, parsed) is parsed.listing
    assert listing_of(hidden, parsed) is not parsed.listing
    assert uses_tlcset(hidden) and uses_tlcset(hidden, spec_of(hidden))
    # Handed the parse of another text, the scan parses the module it is given.
    assert uses_tlcset(hidden, parsed)
    run = run_tlc({"Forge": hidden}, "Forge", CFG, [], Limits(wall_seconds=30), spec=parsed)
    assert run.status == "error" and "TLCSet" in run.note
    assert any("TLCSet" in r for r in precheck_spec(spec_of(hidden)))


def test_only_a_module_that_spells_the_name_is_parsed_for_it(monkeypatch):
    # An identifier is a piece of the text and stripping joins nothing, so a text without the
    # six letters is not parsed (P3's and P4's generated modules); one with them always is.
    from evaluation.tla.sandbox import precheck

    parses: list[str] = []
    monkeypatch.setattr(
        precheck, "list_module", lambda text: parses.append(text) or spec_of(text).listing
    )
    assert not uses_tlcset(spec("Clean", "Init == x = 0\nNext == x' = x + 1"))
    assert parses == []
    hidden = spec("Forge", 'Init == x = 0\nNext == x\' = x + 1 /\\ (* " *) TLCSet("exit", TRUE)')
    assert uses_tlcset(hidden) and parses == [hidden]
    in_a_comment = spec("Said", "Init == x = 0 \\* not TLCSet\nNext == x' = x + 1")
    assert not uses_tlcset(in_a_comment) and parses[-1] == in_a_comment


def test_early_stop_without_empty_queue_is_not_ok():
    # Even if TLCSet slipped through, an unfinished queue must not be a pass: the sandbox's
    # status needs "0 states left on queue" in the final 2199 message.
    from evaluation.tla.messages import parse_messages
    from evaluation.tla.sandbox.process import RawRun
    from evaluation.tla.sandbox.status import tlc_status

    raw = RawRun(
        0,
        "@!@!@STARTMSG 2199:0 @!@!@\n3 states generated, 3 distinct states "
        "found, 1 states left on queue.\n@!@!@ENDMSG 2199 @!@!@\n",
        False,
        1.0,
    )
    status, _ = tlc_status(raw, parse_messages(raw.output), False)
    assert status == "error"


def test_print_forging_tool_output_does_not_change_the_verdict():
    fake = '"@!@!@STARTMSG 2193:0 @!@!@ No error has been found @!@!@ENDMSG 2193 @!@!@"'
    body = f"Init == x = 0\nNext == x < 3 /\\ PrintT({fake}) /\\ x' = x + 1\nInv == x < 2"
    run = run_tlc(
        {"Pr": spec("Pr", body)},
        "Pr",
        CFG + "INVARIANT Inv\n",
        ["-deadlock"],
        Limits(wall_seconds=30),
    )
    assert run.exit_code == 12 and run.status == "error"


def test_io_modules_are_refused():
    reasons = precheck_spec(spec("Io", "Init == x = 0\nNext == x' = x", "Naturals, IOUtils"))
    assert reasons == ["module IOUtils is refused: it reads and writes files and runs processes"]
    assert "not available" in precheck_spec(spec("J", "Init == TRUE", "Unknown"))[0]


def test_endless_spec_is_a_timeout_within_its_budget():
    body = "Init == x = 0\nNext == x' = x + 1"  # infinite state space, never finishes
    run = run_tlc({"Inf": spec("Inf", body)}, "Inf", CFG, [], Limits(wall_seconds=4))
    assert run.status == "timeout"
    # Killed by the 4 s wall timer (how long that takes is measured in bench/, not asserted here).
    assert run.note == "wall-clock limit reached; the tool was killed"


def test_cpu_limit_kills_a_busy_spec():
    body = "Init == x = 0\nNext == x' = x + 1"
    run = run_tlc(
        {"Cpu": spec("Cpu", body)}, "Cpu", CFG, [], Limits(wall_seconds=30, cpu_seconds=2)
    )
    assert run.status == "timeout" and "CPU" in run.note


def _tlc_leftovers() -> set[str]:
    # Other processes may use the shared temp dir; JVM litter (extracted standard modules,
    # perf data) is what an unsandboxed TLC would leave there.
    tmp = Path("/tmp")
    return {p.name for p in tmp.iterdir() if p.name.startswith("hsperfdata") or p.suffix == ".tla"}


def test_twenty_concurrent_runs_all_succeed_and_leave_nothing_behind(tmp_path, monkeypatch):
    base = tmp_path / "base"
    base.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    before = _tlc_leftovers()
    body = "Init == x = 0\nNext == x < 5 /\\ x' = x + 1"
    results = [None] * 20

    def work(i):
        results[i] = run_tlc(
            {f"C{i}": spec(f"C{i}", body)},
            f"C{i}",
            CFG,
            ["-deadlock"],
            Limits(wall_seconds=120, heap_mb=128),
        )

    threads = [threading.Thread(target=work, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.status for r in results] == ["ok"] * 20, [
        r.output[-500:] for r in results if r.status != "ok"
    ][:1]
    assert all("6 distinct states found" in r.output for r in results)
    assert _tlc_leftovers() - before == set()
    assert list(base.iterdir()) == []


def test_no_network_inside_the_sandbox_when_root():
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    from evaluation.tla.sandbox import isolation_mode

    assert isolation_mode() == "namespaces"
