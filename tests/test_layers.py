"""Dependencies go one way: the import-linter contracts in pyproject.toml hold, a planted
violation breaks the contract it crosses, no import circle hides within a layer, and every
`evaluation` module imports in a process without Django (docs/ARCHITECTURE.md, "Layers").

import-linter reads imports inside functions too, so an import moved into a function to dodge a
circle still counts (one planted case below is such an import).
"""

import ast
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("evaluation", "leaderboard", "config")
IMPORTLINTER = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
CONTRACTS = {contract["id"]: contract for contract in IMPORTLINTER["contracts"]}


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """`lint-imports` on the tree at `root`, which finds the packages there (not the repo's)."""
    command = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or "lint-imports"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE")}
    return subprocess.run(
        [command, "--no-cache", "--no-logo"], cwd=root, env=env, capture_output=True, text=True
    )


def test_the_import_contracts_hold():
    done = lint_imports(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    for contract in CONTRACTS.values():
        assert f"{contract['name']} KEPT" in done.stdout


def copy_of_the_tree(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(REPO / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


# (the module that gets the planted line, the line, the contract or contracts it breaks). An
# import up the site's layers closes a circle too: the upper layer already imports the lower.
PLANTED = {
    "the scorer imports Django": (
        "evaluation/scoring.py",
        "from django.conf import settings",
        "scorer-standalone",
    ),
    "the scorer imports the site": (
        "evaluation/windows/errors.py",
        "import leaderboard.models",
        "scorer-standalone",
    ),
    "the site reaches past the surface": (
        "leaderboard/tasks/info.py",
        "from evaluation.pipeline import score_spec",
        "site-through-surface",
    ),
    "a foundation imports a phase, inside a function": (
        "evaluation/tla/splitter.py",
        "def _planted():\n    from evaluation.phases import runtime\n",
        ("scorer-layers", "no-package-circles"),
    ),
    "the data imports the write side": (
        "leaderboard/models/runs.py",
        "from leaderboard.releases import rescoring",
        ("site-layers", "no-package-circles"),
    ),
    "the board reaches up to a page": (
        "leaderboard/board/store.py",
        "def _planted():\n    from leaderboard.web import views\n",
        ("site-layers", "no-package-circles"),
    ),
    "two presentation packages import each other": (
        "leaderboard/runs/views.py",
        "from leaderboard.compare import overview",
        "no-package-circles",
    ),
    "two scorer packages import each other": (
        "evaluation/tla/parsed.py",
        "from evaluation.tla.sandbox import precheck",
        "no-package-circles",
    ),
}


@pytest.mark.parametrize("case", PLANTED)
def test_a_planted_violation_breaks_the_contract_it_crosses(tmp_path, case):
    module, line, breaks = PLANTED[case]
    root = copy_of_the_tree(tmp_path)
    with (root / module).open("a") as planted:
        planted.write(f"\n{line}\n")
    done = lint_imports(root)
    assert done.returncode != 0
    broken = {c["id"] for c in CONTRACTS.values() if f"{c['name']} BROKEN" in done.stdout}
    assert broken == ({breaks} if isinstance(breaks, str) else set(breaks)), done.stdout
    importer = module.removesuffix(".py").replace("/", ".")
    # A circle is reported between siblings, relative to their parent (".runs -> .compare").
    named = [importer] + [f"- .{part} -> " for part in importer.split(".")[1:]]
    assert any(name in done.stdout for name in named), done.stdout


def listed_modules(contract: dict) -> set[str]:
    return {name.strip() for layer in contract["layers"] for name in layer.split(":")}


def test_every_site_module_is_in_a_layer():
    """The site's layers name modules one by one (its features cut across entry points,
    services and data), so a new module must be placed; the scorer's contract is exhaustive."""
    listed = listed_modules(CONTRACTS["site-layers"])
    unplaced = []
    for package in ("leaderboard", "config"):
        for path in sorted((REPO / package).rglob("*.py")):
            if "migrations" in path.parts or (path.name == "__init__.py" and not path.read_text()):
                continue
            name = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
            if not any(name == m or name.startswith(m + ".") for m in listed):
                unplaced.append(name)
    assert unplaced == []
    assert CONTRACTS["scorer-layers"]["exhaustive"] is True


def test_no_module_is_part_of_an_import_circle():
    """Layers allow imports within a layer; none of them may close a circle. An import under
    `if TYPE_CHECKING:` never runs, so it closes no circle (a model module names the queryset
    type its manager returns, and the queryset module names the model)."""
    graph = grimp.build_graph(*PACKAGES, cache_dir=None, exclude_type_checking_imports=True)
    circles = [
        graph.find_shortest_chain(importer=imported, imported=importer)
        for importer in sorted(graph.modules)
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if graph.chain_exists(importer=imported, imported=importer)
    ]
    assert circles == []
    assert graph.chain_exists(importer="leaderboard.scoring.jobs", imported="evaluation.pipeline")


def test_every_evaluation_module_imports_without_django_or_the_site():
    script = """
import importlib, json, pkgutil, sys

attempts = []

class Recorder:
    def find_spec(self, name, path=None, target=None):
        attempts.append(name)
        return None

sys.meta_path.insert(0, Recorder())
import evaluation
names = ["evaluation"] + [m.name for m in pkgutil.walk_packages(evaluation.__path__, "evaluation.")]
for name in names:
    importlib.import_module(name)
banned = ("django", "django_rq", "rq", "leaderboard", "config")
pulled = sorted({a for a in attempts + list(sys.modules) if a.split(".")[0] in banned})
print(json.dumps({"modules": names, "pulled": pulled}))
"""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    on_disk = list((REPO / "evaluation").rglob("*.py"))
    assert "evaluation.surface" in result["modules"]
    assert len(result["modules"]) >= len(on_disk)
    assert result["pulled"] == []


def test_every_package_says_what_it_owns():
    """A newcomer reads a package's docstring before its modules: each package below the two
    roots says what it owns (and, in the site, which layer it is in)."""
    silent = []
    for package in ("evaluation", "leaderboard"):
        for init in sorted((REPO / package).rglob("__init__.py")):
            if "migrations" in init.parts or init.parent == REPO / "leaderboard":
                continue
            if not ast.get_docstring(ast.parse(init.read_text())):
                silent.append(init.relative_to(REPO).as_posix())
    assert silent == []
