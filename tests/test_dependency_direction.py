"""Dependencies go one way: the scorer (`evaluation/`) knows no Django and no site, the site
reaches the scorer only through its entry modules, and no import circle hides in a function.

The import graph is read from the source (AST), so a circle or a reach past the pipeline fails
here even when the import that makes it sits in code no other test runs.
"""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PROJECT_PACKAGES = ("evaluation", "leaderboard", "config")
SCANNED = ("evaluation", "leaderboard")
# What the site may import from the scorer (docs/ARCHITECTURE.md, "Layers").
SITE_ENTRIES = {
    "evaluation.pipeline",
    "evaluation.contracts",
    "evaluation.scoring",
    # The docker backend and the score command on files (the scorer image's entry point).
    "evaluation.container",
    "evaluation.cli",
}
# The trace cutters, for the code that imports corpora (or cuts them for `manage.py score`).
WINDOWS_USERS = {"leaderboard.importing", "leaderboard.management.commands.score"}
# Function-level imports of project modules that are allowed, each with the reason. An import
# placed inside a function to dodge a circle does not belong here: break the circle instead.
JUSTIFIED_LOCAL_IMPORTS: dict[tuple[str, str], str] = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules(*packages: str) -> dict[str, Path]:
    found = {}
    for package in packages:
        for path in sorted((REPO / package).rglob("*.py")):
            if "migrations" not in path.parts:
                found[module_name(path)] = path
    return found


ALL_MODULES = source_modules(*PROJECT_PACKAGES)


def imported_names(node: ast.AST, importer: str) -> list[str]:
    """The modules an import statement names (`from a import b` is `a.b` when that is a module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        package = importer.split(".")
        if not ALL_MODULES[importer].name == "__init__.py":
            package = package[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, base] if base else package)
    names = [f"{base}.{alias.name}" for alias in node.names]
    return [name for name in names if name in ALL_MODULES] or [base]


def is_project(name: str) -> bool:
    return name.split(".")[0] in PROJECT_PACKAGES


def imports(module: str, *, local: bool) -> list[tuple[int, str]]:
    """(line, imported project module) at module level, or inside functions when `local`."""
    tree = ast.parse(ALL_MODULES[module].read_text())
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    in_functions = {id(n) for f in functions for n in ast.walk(f) if n is not f}
    found = []
    for node in ast.walk(tree):
        if (id(node) in in_functions) != local:
            continue
        found += [(node.lineno, name) for name in imported_names(node, module) if is_project(name)]
    return found


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
names = ["evaluation"] + [
    m.name for m in pkgutil.walk_packages(evaluation.__path__, "evaluation.")
]
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
    assert "evaluation.pipeline" in result["modules"]
    assert len(result["modules"]) >= len(source_modules("evaluation"))
    assert result["pulled"] == []


def test_there_is_no_import_circle():
    graph = {m: {name for _, name in imports(m, local=False)} for m in ALL_MODULES}
    graph = {m: {t for t in targets if t in ALL_MODULES and t != m} for m, targets in graph.items()}
    state: dict[str, str] = {}
    circles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                circles.append(path[path.index(target) :] + [target])
            elif target not in state:
                visit(target, [*path, target])
        state[node] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert circles == []


def test_no_project_import_hides_inside_a_function():
    local = {
        (module, name): line
        for module in source_modules(*SCANNED)
        for line, name in imports(module, local=True)
    }
    unexplained = {key: line for key, line in local.items() if key not in JUSTIFIED_LOCAL_IMPORTS}
    assert unexplained == {}


@pytest.mark.parametrize("package", ["leaderboard", "config"])
def test_the_site_reaches_the_scorer_only_through_its_entry_modules(package):
    reaches = {}
    for module in source_modules(package):
        for line, name in imports(module, local=False) + imports(module, local=True):
            if name.split(".")[0] != "evaluation" or name in SITE_ENTRIES:
                continue
            if name.startswith("evaluation.windows") and module in WINDOWS_USERS:
                continue
            reaches[f"{module}:{line}"] = name
    assert reaches == {}


def test_the_checks_see_the_imports_they_police():
    """The AST reading finds known edges (else the tests above would prove nothing)."""
    assert "leaderboard.models" in {n for _, n in imports("leaderboard.jobs", local=False)}
    assert "evaluation.scoring" in {n for _, n in imports("leaderboard.models", local=False)}
    assert "evaluation.lint" in {n for _, n in imports("evaluation.pipeline", local=False)}
    assert "evaluation.tla.sandbox" in {n for _, n in imports("evaluation.lint", local=False)}


# docs/ARCHITECTURE.md, "Layers", from the bottom up: a module imports its own layer or lower.
LAYERS = (
    ("scorer foundations", ("evaluation.scoring", "evaluation.results", "evaluation.contracts",
                            "evaluation.tla", "evaluation.windows", "evaluation")),
    ("scorer phases", ("evaluation.conformance", "evaluation.phases", "evaluation.lint",
                       "evaluation.adapter_text", "evaluation.lint_process")),
    ("scorer entry", ("evaluation.pipeline", "evaluation.cli", "evaluation.textreport",
                      "evaluation.container", "evaluation.imagesetup", "evaluation.__main__")),
    ("site data", ("leaderboard.models", "leaderboard.querysets", "leaderboard.board_cache",
                   "leaderboard.apps", "leaderboard", "config.settings", "config.env", "config")),
    ("site services", ("leaderboard.",)),
    ("site entry points", ("leaderboard.views", "leaderboard.api", "leaderboard.urls",
                           "leaderboard.urls_board", "leaderboard.urls_runs",
                           "leaderboard.urls_accounts", "leaderboard.admin",
                           "leaderboard.management", "config.urls", "config.wsgi", "config.asgi")),
)  # fmt: skip


def layer_of(module: str) -> int:
    """The layer whose longest prefix matches (`leaderboard.` catches the remaining site code)."""
    best, best_length = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or module.startswith(
                prefix if prefix.endswith(".") else prefix + "."
            )
            if matches and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    return best


def test_every_import_goes_down_the_layers_of_the_architecture_table():
    upward = {}
    for module in ALL_MODULES:
        for line, name in imports(module, local=False) + imports(module, local=True):
            target = name if name in ALL_MODULES else name.rsplit(".", 1)[0]
            if layer_of(target) > layer_of(module):
                upward[f"{module}:{line}"] = f"{name} ({LAYERS[layer_of(target)][0]})"
    assert all(layer_of(m) >= 0 for m in ALL_MODULES)
    assert upward == {}
