"""After bin/demo, the README's commands work as written in a new shell: the settings read the
`.env` that bin/demo writes (the environment still wins), `create_user` makes an account, and
`create_api_token` then prints a token, with nothing exported by hand."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def new_shell(tmp_path, **extra) -> dict:
    """A fresh shell's environment: no project variables, only the .env file to go by."""
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "ENV_FILE": str(tmp_path / ".env")}
    env.update(extra)
    return env


def write_demo_env(tmp_path) -> None:
    (tmp_path / ".env").write_text(
        "# as bin/demo writes it\n"
        "DEBUG=1\n"
        "SECRET_KEY='a-generated-key'\n"
        f"DATABASE_URL=sqlite:///{tmp_path}/db.sqlite3\n"
        "REDIS_URL=redis://127.0.0.1:6379/1\n"
        "PORT=8000\n"
    )


def manage(env, *args, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True)  # fmt: skip


def setting(env, name: str) -> str:
    out = manage(env, "shell", "-c", f"from django.conf import settings; print(settings.{name})")
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_the_settings_read_the_env_file_and_the_environment_wins(tmp_path):
    write_demo_env(tmp_path)
    assert setting(new_shell(tmp_path), "SECRET_KEY") == "a-generated-key"
    assert setting(new_shell(tmp_path), "REDIS_URL") == "redis://127.0.0.1:6379/1"
    shell = new_shell(tmp_path, REDIS_URL="redis://127.0.0.1:6379/7")
    assert setting(shell, "REDIS_URL") == "redis://127.0.0.1:6379/7"


def test_a_malformed_env_line_is_named(tmp_path):
    (tmp_path / ".env").write_text("DEBUG=1\nthis is not a setting\n")
    out = manage(new_shell(tmp_path), "check")
    assert out.returncode != 0
    assert ".env:2: expected KEY=VALUE, got 'this is not a setting'" in out.stderr


def test_without_an_env_file_the_old_failure_is_still_explained(tmp_path):
    out = manage(new_shell(tmp_path), "check")
    assert "SECRET_KEY must be set when DEBUG is off" in out.stderr


@pytest.mark.parametrize(
    "documented",
    [
        "manage.py create_user alice",
        "manage.py create_api_token alice ci-laptop",
        "REDIS_URL=redis://127.0.0.1:6379/1",
        "PORT=8000",
    ],
)
def test_the_readme_documents_the_commands_and_demo_settings(documented):
    assert documented in README


def test_a_user_and_a_token_from_the_documented_commands(tmp_path):
    write_demo_env(tmp_path)
    shell = new_shell(tmp_path)
    assert manage(shell, "migrate", "--noinput").returncode == 0
    created = manage(shell, "create_user", "alice", "--password-stdin",
                     stdin="a long pass phrase\n")  # fmt: skip
    assert created.returncode == 0, created.stderr
    token = manage(shell, "create_api_token", "alice", "ci-laptop")
    assert token.returncode == 0, token.stderr
    assert token.stdout.strip().startswith("smb_")
    weak = manage(shell, "create_user", "bob", "--password-stdin", stdin="123\n")
    assert weak.returncode != 0 and "the password is refused" in weak.stderr


def test_the_quick_loop_is_documented_and_leaves_the_browser_tests_out():
    """`bin/test --quick` as the README gives it: the checks run, the browser tests are
    deselected (and nothing is installed for them), pytest collects the rest."""
    assert "bin/test --quick" in README
    browser, other = "tests/test_browser_runs.py", "tests/test_layers.py"
    command = ["bin/test", "--quick", "--no-cov", "--collect-only", "-q", browser, other]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "==> ruff format --check and ruff check" in done.stdout
    assert "chromium" not in done.stdout
    assert f"{other}::" in done.stdout and f"{browser}::" not in done.stdout
    assert "deselected" in done.stdout
