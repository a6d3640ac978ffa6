"""Every TLC number the scorer names is the one the pinned jar gives that name."""

import re
import shutil
import subprocess

import pytest

from evaluation.tla import tools
from evaluation.tla.codes import EC, MP

pytestmark = pytest.mark.tla

_CONSTANT = re.compile(r"static final int (\w+) = (-?\d+);")


def jar_constants(java_class: str) -> dict[str, int]:
    if shutil.which("javap") is None:
        pytest.skip("javap (a JDK) is needed to read the jar's constants")
    listing = subprocess.run(
        ["javap", "-constants", "-classpath", tools.jar_path(), java_class],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {name: int(value) for name, value in _CONSTANT.findall(listing)}


def ours(namespace: type) -> dict[str, int]:
    return {
        name: value
        for name, value in vars(namespace).items()
        if not name.startswith("_") and isinstance(value, int)
    }


@pytest.mark.parametrize(
    ("namespace", "java_class"),
    [
        (EC, "tlc2.output.EC"),
        (EC.ExitStatus, "tlc2.output.EC$ExitStatus"),
        (MP, "tlc2.output.MP"),
    ],
)
def test_each_name_has_the_jars_value(namespace, java_class):
    named = ours(namespace)
    assert named, f"{namespace.__name__} names no constant"
    jar = jar_constants(java_class)
    assert {name: jar.get(name) for name in named} == named
