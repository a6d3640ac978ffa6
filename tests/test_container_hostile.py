"""Hostile submissions under the docker backend end with a clear reason and leave nothing behind.

A spec reaches the operating system only through the JVM, and the local sandbox already refuses
the ways a spec could (IOUtils, TLCSet, class files beside the spec; tests/test_sandbox_hostile.py).
The container is the second wall, for code that got out of the JVM anyway: the network, fork bomb
and disk cases therefore run hostile code directly in a container started with the options every
run gets, and check that the wall holds.
"""

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from evaluation import cli
from evaluation.backends.container import (
    ContainerTimeout,
    Limits,
    input_dir,
    limits_for,
    read_report,
    run_container,
    score_in_container,
    write_inputs,
)
from evaluation.tla.tools import jar_path
from tests.docker_support import IMAGE, SPIN_SPEC, assert_nothing_left, settings

pytestmark = [pytest.mark.tla, pytest.mark.docker]

SMALL = Limits(wall_seconds=20, memory_mb=512, cpus=1.0, pids=64, tmpfs_mb=32)


def _spin():
    contract = cli.load_task("spin", cli.default_tasks_dir())
    return contract, cli.cut(contract, cli.default_data_dir())


def _python(client, code: str, tmp_path: Path, label: str, limits: Limits = SMALL):
    with input_dir(str(tmp_path)) as folder:
        return run_container(
            client, IMAGE, ["-c", code], folder, limits, label, entrypoint=["python"]
        )


def _host_processes(marker: str) -> int:
    count = 0
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker.encode() in (proc / "cmdline").read_bytes():
                count += 1
        except OSError:
            continue
    return count


def test_a_spec_asking_for_the_network_is_refused_and_the_container_has_none(
    docker_client, tmp_path
):
    contract, windows = _spin()
    spec = SPIN_SPEC.read_text().replace(
        "EXTENDS TLC, FiniteSets",
        'EXTENDS TLC, FiniteSets, IOUtils\nFetch == IOExec(<<"curl", "http://deb.debian.org">>)',
    )
    report = score_in_container(
        spec,
        contract,
        windows,
        settings=settings(input_root=str(tmp_path)),
        run_label="net",
        client=docker_client,
    )
    assert report.outcomes["syntax"].score < 1  # P1 credits only the definitions that parse
    assert "module IOUtils is refused" in str(report.outcomes["syntax"].details)
    assert report.outcomes["runtime"].status == "skipped"

    probe = (
        "import socket\n"
        "for host in [('1.1.1.1', 80), ('deb.debian.org', 80)]:\n"
        "    try:\n"
        "        socket.create_connection(host, timeout=3)\n"
        "        print('CONNECTED', host)\n"
        "    except OSError as exc:\n"
        "        print('refused', host, exc.__class__.__name__)\n"
    )
    result = _python(docker_client, probe, tmp_path, "net")
    out = result.stdout.decode()
    assert result.exit_code == 0 and "CONNECTED" not in out and out.count("refused") == 2, out
    assert_nothing_left(docker_client, "net", tmp_path)


def test_a_fork_bomb_is_held_by_the_pids_limit_and_ends_at_the_deadline(docker_client, tmp_path):
    marker = "forkbomb-" + str(os.getpid())
    code = (
        f"# {marker}\nimport os, time\n"
        "while True:\n"
        "    try:\n        os.fork()\n"
        "    except OSError:\n        time.sleep(0.01)\n"
    )
    peak = [0]
    done = threading.Event()

    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], _host_processes(marker))
            time.sleep(0.2)

    watcher = threading.Thread(target=watch)
    watcher.start()
    limits = Limits(wall_seconds=12, memory_mb=512, cpus=1.0, pids=64, tmpfs_mb=32)
    try:
        result = _python(docker_client, code, tmp_path, "fork", limits)
    finally:
        done.set()
        watcher.join()
    assert result.timed_out
    with pytest.raises(ContainerTimeout, match="total time budget"):
        read_report(result)
    assert 1 < peak[0] <= limits.pids
    assert _host_processes(marker) == 0
    assert_nothing_left(docker_client, "fork", tmp_path)


def test_filling_the_disk_stops_at_the_tmpfs_cap_and_the_root_is_read_only(docker_client, tmp_path):
    code = (
        "import errno, os\n"
        "with open('/tmp/fill', 'wb') as f:\n"
        "    try:\n"
        "        while True:\n            f.write(b'x' * (1 << 20)); f.flush()\n"
        "    except OSError as exc:\n        print('tmp', errno.errorcode[exc.errno])\n"
        "print('size', os.path.getsize('/tmp/fill') >> 20)\n"
        "for path in ['/opt/sysmobench/evil', '/in/evil', '/evil']:\n"
        "    try:\n        open(path, 'w')\n        print('WROTE', path)\n"
        "    except OSError as exc:\n        print('ro', errno.errorcode[exc.errno])\n"
    )
    result = _python(docker_client, code, tmp_path, "disk")
    out = result.stdout.decode()
    assert "tmp ENOSPC" in out, out
    assert int(out.split("size ")[1].split()[0]) <= SMALL.tmpfs_mb
    assert "WROTE" not in out and out.count("ro EROFS") == 3, out
    assert_nothing_left(docker_client, "disk", tmp_path)


def test_a_class_file_beside_the_spec_never_runs(docker_client, tmp_path):
    # Named after the spec's module, as TLC's operator overrides are: if TLC ever loaded it, the
    # static initialiser would end the JVM with 42 and the phases would fail.
    java = tmp_path / "src" / "spin.java"
    java.parent.mkdir()
    java.write_text(
        "public class spin { static { System.exit(42); } "
        "public static tlc2.value.impl.Value TypeOK() "
        "{ return tlc2.value.impl.BoolValue.ValFalse; } }"
    )
    subprocess.run(["javac", "-cp", jar_path(), "-d", str(java.parent), str(java)], check=True)
    contract, windows = _spin()
    root = tmp_path / "in"
    with input_dir(str(root)) as folder:
        argv = write_inputs(folder, SPIN_SPEC.read_text(), contract, windows, None, None)
        (folder / "spin.class").write_bytes((java.parent / "spin.class").read_bytes())
        (folder / "spin.class").chmod(0o644)
        result = run_container(
            docker_client, IMAGE, argv, folder, limits_for(contract, settings()), "class"
        )
    report = read_report(result)
    assert report.overall == pytest.approx(1.0)
    assert "override" not in str(report.to_dict())
    assert_nothing_left(docker_client, "class", root)


def test_an_endless_spec_is_stopped_at_the_container_deadline(docker_client, tmp_path):
    contract, windows = _spin()
    # Every exploration is bounded by work, so "endless" is a guard that costs 2^22 evaluations
    # in every state (a recursive function is not memoised; reading lockState keeps TLC from
    # evaluating it once as a constant): P2 alone would take far longer than the deadline.
    heavy = (
        "Heavy == LET F[n \\in 0..22] == "
        'IF n = 0 THEN (IF lockState = "locked" THEN 1 ELSE 2) ELSE F[n-1] + F[n-1] '
        "IN F[22] > 0\n\n"
    )
    spec = (
        SPIN_SPEC.read_text()
        .replace("EXTENDS TLC, FiniteSets", "EXTENDS TLC, FiniteSets, Naturals")
        .replace("StartLock(t) ==\n", heavy + "StartLock(t) ==\n  /\\ Heavy\n", 1)
    )
    assert "/\\ Heavy" in spec
    phases = []
    with pytest.raises(ContainerTimeout, match="total time budget"):
        score_in_container(
            spec,
            contract,
            windows,
            settings=settings(input_root=str(tmp_path), max_seconds=30),
            on_phase=lambda o: phases.append(o.phase),
            run_label="endless",
            client=docker_client,
        )
    # "total time budget" is the 30 s container deadline's own reason (the contract's safety nets
    # would raise InfrastructureFailure instead); how long it took is bench material.
    assert phases[:1] == ["syntax"]
    assert_nothing_left(docker_client, "endless", tmp_path)
