"""The modules named in tests/conftest.py's SLOWEST_MODULES start first, longest first, in a
real `-n N --dist loadfile` run as in bin/test; every other test keeps its order, and every name
in the list is a module of the suite."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

from tests import conftest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def test_every_slowest_module_exists_once():
    assert conftest.SLOWEST_MODULES, "the list names the suite's longest modules"
    missing = [name for name in conftest.SLOWEST_MODULES if not (TESTS / name).is_file()]
    assert not missing, f"SLOWEST_MODULES names modules that are not in tests/: {missing}"
    assert len(set(conftest.SLOWEST_MODULES)) == len(conftest.SLOWEST_MODULES)


def test_the_hook_moves_the_slowest_modules_first_and_keeps_the_rest_in_order(monkeypatch):
    monkeypatch.setattr(conftest, "SLOWEST_MODULES", ["test_slow.py", "test_slower_but_2nd.py"])

    def item(module: str, name: str):
        return SimpleNamespace(path=Path("/x/tests") / module, name=f"{module}::{name}")

    items = [
        item("test_a.py", "1"),
        item("test_slower_but_2nd.py", "1"),
        item("test_b.py", "1"),
        item("test_slow.py", "1"),
        item("test_a.py", "2"),
        item("test_slow.py", "2"),
        item("test_slower_but_2nd.py", "2"),
    ]
    conftest.pytest_collection_modifyitems(items)
    assert [i.name for i in items] == [
        "test_slow.py::1",
        "test_slow.py::2",
        "test_slower_but_2nd.py::1",
        "test_slower_but_2nd.py::2",
        "test_a.py::1",
        "test_b.py::1",
        "test_a.py::2",
    ]


def test_xdist_loadfile_starts_the_modules_in_the_hooks_order(tmp_path):
    """A real xdist run of a small suite whose conftest is tests/conftest.py's hooks with three
    fake slow modules. With one worker the order it runs the modules in is the queue's order.
    The slow modules have the fewest tests, so xdist's default queue (most tests first) would
    run them last."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(
        textwrap.dedent(
            """
            import tests.conftest as suite

            suite.SLOWEST_MODULES[:] = ["test_z.py", "test_y.py"]
            pytest_configure = suite.pytest_configure
            pytest_collection_modifyitems = suite.pytest_collection_modifyitems
            """
        )
    )
    test_body = textwrap.dedent(
        """
        from pathlib import Path


        def test_{n}():
            with open(Path(__file__).with_name("ran.txt"), "a") as ran:
                ran.write(Path(__file__).name + "\\n")
        """
    )
    for module, count in [("test_a.py", 4), ("test_b.py", 3), ("test_y.py", 2), ("test_z.py", 1)]:
        (tmp_path / module).write_text("".join(test_body.format(n=n) for n in range(count)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "1", "--dist", "loadfile", "-p", "no:django"]
        + ["-p", "no:cacheprovider", "-q", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    ran = (tmp_path / "ran.txt").read_text().split()
    assert ran == ["test_z.py"] + ["test_y.py"] * 2 + ["test_a.py"] * 4 + ["test_b.py"] * 3
