"""The image recipes and the container limits, checked without an engine; and the web image
run as compose runs it (marked docker: skips without an engine, fails under CI=true)."""

from pathlib import Path

import pytest

from evaluation import cli
from evaluation.backends.container import (
    OVERHEAD_MB,
    ContainerSettings,
    container_options,
    limits_for,
)

ROOT = Path(__file__).resolve().parent.parent


def _pins(name: str) -> dict[str, str]:
    pins = {}
    for line in (ROOT / name).read_text().splitlines():
        line = line.split("#", 1)[0].split(";", 1)[0].strip()
        if line and not line.startswith("-"):
            package, version = line.split("==")
            pins[package.lower()] = version
    return pins


def test_the_scorer_image_pins_the_same_versions_as_the_site():
    scorer, site = _pins("requirements-scorer.txt"), _pins("requirements.txt")
    assert scorer and {p: site.get(p) for p in scorer} == scorer


def test_both_images_build_from_a_base_argument_defaulting_to_public_debian():
    for name in ("scorer", "web"):
        text = (ROOT / "docker" / f"{name}.Dockerfile").read_text()
        assert "ARG BASE_IMAGE=debian:bookworm-slim\nFROM ${BASE_IMAGE}\n" in text
        users = [line for line in text.splitlines() if line.startswith("USER ")]
        assert users and users[-1] not in ("USER root", "USER 0"), name


def test_limits_follow_the_contract_budgets():
    spin = cli.load_task("spin", cli.default_tasks_dir())
    locksvc = cli.load_task("locksvc", cli.default_tasks_dir())
    settings = ContainerSettings(tmpfs_mb=100)
    # spin: the safety nets 300 + 300 + 1200 + 600 s of the four phases, plus 300 s for each of
    # its 7 invariants checked alone after P4's joint runs; locksvc: 1800 s of joint runs and
    # 600 s for each of 6 (budgets.py, tasks_data/locksvc/task.yaml).
    assert limits_for(spin, settings).wall_seconds == 2400 + 7 * 300 + settings.margin_seconds
    assert limits_for(locksvc, settings).wall_seconds == 3600 + 6 * 600 + settings.margin_seconds
    assert limits_for(spin, settings).memory_mb == 512 + 100 + OVERHEAD_MB
    assert limits_for(spin, ContainerSettings(max_seconds=30)).wall_seconds == 30


def test_every_run_gets_the_isolation_options():
    options = container_options(
        limits_for(cli.load_task("spin", cli.default_tasks_dir()), ContainerSettings())
    )
    assert options["network_mode"] == "none"
    assert options["read_only"] is True
    assert options["cap_drop"] == ["ALL"]
    assert options["security_opt"] == ["no-new-privileges"]
    assert options["user"] != "root" and not options["user"].startswith("0")
    assert options["mem_limit"] == options["memswap_limit"]


# Run as compose.yaml runs the web service: the image's own user, production settings.
UPLOAD_CHECK = """
import django
django.setup()
from leaderboard.models import Task
from leaderboard.submit.lint import lint_upload
spec = open("tasks_data/spin/reference/spin.tla").read()
result = lint_upload(spec, Task(slug="spin"))
print("errors:", result.errors)
"""


@pytest.mark.docker
def test_the_web_image_s_user_can_check_an_upload():
    """The upload check takes a slot in LINT_SLOT_DIR (var/lint-slots): the web image's user
    must be able to make and lock it there. It could not, and every submission under compose
    answered 500 (docs/decisions/0003-no-run-left-behind.md)."""
    from tests.docker_support import WEB_IMAGE, engine_with_web_image

    client = engine_with_web_image()
    try:
        output = client.containers.run(
            WEB_IMAGE,
            ["python", "-c", UPLOAD_CHECK],
            environment={
                "SECRET_KEY": "image-test-only",
                "DJANGO_SETTINGS_MODULE": "config.settings",
            },
            labels={"org.sysmobench.test": "web-image"},
            network_mode="none",
            remove=True,
            stderr=True,
        )
    finally:
        client.close()
    assert output.decode().strip().splitlines()[-1] == "errors: {}"
