"""The set-up traps of a first hour: bin/demo's .env keeps the PORT and REDIS_URL it was started
with; gunicorn reads .env like the settings; the deployment steps name collectstatic (and WhiteNoise
compresses); the reaper has a timer outside compose; bin/build-images stops at once, saying why,
when no Docker daemon answers, before any debootstrap."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
PYTHON_DIR = str(Path(sys.executable).parent)


def write_env(tmp_path, **env) -> str:
    script = f'say() {{ :; }}; source "{ROOT}/bin/_demo_env.sh"; write_demo_env .env'
    shell = {"PATH": f"{PYTHON_DIR}:/usr/bin:/bin", "HOME": str(tmp_path), **env}
    subprocess.run(["bash", "-c", script], cwd=tmp_path, env=shell, check=True)
    return (tmp_path / ".env").read_text()


def test_the_demo_env_keeps_the_port_and_redis_it_was_started_with(tmp_path):
    written = write_env(tmp_path, PORT="18642", REDIS_URL="redis://127.0.0.1:6379/6")
    assert "PORT=18642\n" in written
    assert "REDIS_URL=redis://127.0.0.1:6379/6\n" in written
    assert "SECRET_KEY=" in written


def test_without_them_the_documented_defaults_are_written_once(tmp_path):
    written = write_env(tmp_path)
    assert "PORT=8000\n" in written and "REDIS_URL=redis://127.0.0.1:6379/1\n" in written
    assert write_env(tmp_path, PORT="9999") == written  # an existing .env is never rewritten


def test_bin_demo_writes_its_env_through_that_function():
    assert "write_demo_env .env" in (ROOT / "bin" / "demo").read_text()


def gunicorn_settings(tmp_path, env_file: str, **env) -> list[str]:
    (tmp_path / ".env").write_text(env_file)
    shell = {"PATH": os.environ["PATH"], "ENV_FILE": str(tmp_path / ".env"), **env}
    code = ("import runpy; g = runpy.run_path('gunicorn.conf.py'); "
            "print(g['bind'], g['workers'], g['threads'])")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=shell,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.split()


def test_gunicorn_reads_bind_workers_and_threads_from_the_env_file(tmp_path):
    env_file = "PORT=18643\nHOST=0.0.0.0\nWEB_CONCURRENCY=2\nGUNICORN_THREADS=7\n"
    assert gunicorn_settings(tmp_path, env_file) == ["0.0.0.0:18643", "2", "7"]
    # The environment wins over the file, as for the settings.
    assert gunicorn_settings(tmp_path, env_file, GUNICORN_THREADS="3")[2] == "3"
    assert gunicorn_settings(tmp_path, "GUNICORN_BIND=unix:/tmp/x.sock\n")[0] == "unix:/tmp/x.sock"


def test_a_bad_number_in_the_env_file_is_named(tmp_path):
    with pytest.raises(subprocess.CalledProcessError) as failed:
        gunicorn_settings(tmp_path, "GUNICORN_THREADS=many\n")
    assert "GUNICORN_THREADS='many' is not an integer" in failed.value.stderr


def test_the_deployment_steps_collect_static_files_and_whitenoise_compresses():
    assert "manage.py collectstatic --noinput" in README
    code = "from django.conf import settings; print(settings.STORAGES['staticfiles']['BACKEND'])"
    shell = {"PATH": os.environ["PATH"], "ENV_FILE": "", "DEBUG": "0", "SECRET_KEY": "x" * 50,
             "ALLOWED_HOSTS": "example.org"}  # fmt: skip
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT,
                          env=shell, capture_output=True, text=True)  # fmt: skip
    assert done.stdout.strip().endswith("whitenoise.storage.CompressedStaticFilesStorage"), (
        done.stderr
    )


def test_the_reaper_has_a_timer_outside_compose():
    assert "manage.py reap_runs >>var/reap.log" in README
    assert "while true; do .venv/bin/python manage.py reap_runs; sleep 300; done" in README


def fake_docker(tmp_path, script: str) -> dict:
    folder = tmp_path / "bin"
    folder.mkdir()
    docker = folder / "docker"
    docker.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/docker.calls"\n{script}\n')
    docker.chmod(0o755)
    return {"PATH": f"{folder}:/usr/bin:/bin", "HOME": str(tmp_path)}


def test_build_images_stops_at_once_without_a_docker_daemon(tmp_path):
    shell = fake_docker(tmp_path, "exit 1")
    done = subprocess.run([str(ROOT / "bin" / "build-images")], env=shell, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 3
    assert "no Docker daemon answers" in done.stderr
    # Nothing but the check was asked of docker: no pull, no debootstrap base.
    assert (tmp_path / "docker.calls").read_text().split() == ["info"]


def test_build_images_says_when_docker_is_not_installed(tmp_path):
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in ("bash", "dirname"):  # what the script needs before its check, and no docker
        (tools / tool).symlink_to(shutil.which(tool))
    done = subprocess.run([str(ROOT / "bin" / "build-images")], capture_output=True, text=True,
                          env={"PATH": str(tools), "HOME": str(tmp_path)}, timeout=60)  # fmt: skip
    assert done.returncode == 3 and "docker command is not installed" in done.stderr
