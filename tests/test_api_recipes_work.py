"""docs/API.md's shell recipes run as written against a live server, in one new shell: submit on a
fresh account (the model is described in the first call), poll status.json with the owner's
token until the run ends (under a deadline), list my runs, publish, export. And the pieces they
rest on: a private run's status answers its owner's token and a JSON 404 to anyone else (DEBUG
or not), a second publish says why it is refused, GET /api/v1/runs lists only my runs, paged,
and a finished run says when it started. Every `manage.py` command and option the README shows
exists.
"""

import json
import re
import shutil
import subprocess
import threading
from pathlib import Path
from unittest import mock

import pytest
from django.conf import settings
from django.db import connection
from django.test import LiveServerTestCase, override_settings
from django.urls import reverse

from leaderboard.accounts.tokens import create_token
from leaderboard.api import views as api_views
from leaderboard.models import Run
from tests.base import WorldTestCase, make_model, make_run, make_task, make_user

ROOT = Path(__file__).resolve().parent.parent
API_DOC = (ROOT / "docs" / "API.md").read_text()
REFERENCE = Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla"
# The brief's port range for this feature's live servers.
PORT = 18601


def api_recipes() -> str:
    """Every ```sh block of docs/API.md that talks to the server ($SMB), in document order."""
    blocks = re.findall(r"```sh\n(.*?)```", API_DOC, flags=re.S)
    return "\n".join(block for block in blocks if "$SMB" in block)


def finish_soon(run_id: int, attempt: int, queue: str = "evaluation") -> None:
    """Stands in for the worker: the run is claimed, then finishes a second later, so the
    documented loop polls a queued run at least once before it ends."""

    def work() -> None:
        try:
            run = Run.objects.get(pk=run_id)
            if run.claim():
                run.finish(0.65, {"adapter": "identity"})
        finally:
            connection.close()

    threading.Timer(1.0, work).start()


@pytest.mark.skipif(not (shutil.which("jq") and shutil.which("curl")), reason="needs jq and curl")
@override_settings(DEBUG=True)
class RecipesRunAsWrittenTest(LiveServerTestCase):
    port = PORT

    def setUp(self):
        make_task("spin", position=1)
        self.user = make_user("newcomer", password="a long pass phrase")
        self.token, _ = create_token(self.user, "laptop")

    def shell(self, script: str, tmp: Path) -> subprocess.CompletedProcess:
        (tmp / "spin.tla").write_text(REFERENCE.read_text())
        # The score-anyway recipe's spec: one that only SANY refuses (an unclosed parenthesis).
        broken = REFERENCE.read_text().replace("\nInit ==", "\nBroken == (1 +\n\nInit ==", 1)
        (tmp / "broken.tla").write_text(broken)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "SMB": self.live_server_url,
               "SMB_TOKEN": self.token}  # fmt: skip
        return subprocess.run(["timeout", "120", "bash", "-euo", "pipefail", "-c", script],
                              cwd=tmp, env=env, capture_output=True, text=True)  # fmt: skip

    def test_the_documented_session_submits_polls_lists_and_publishes(self):
        script = api_recipes()
        self.assertIn("status.json", script)
        self.assertIn("deadline", script)
        tmp = Path(self.tmp_dir.name)
        with mock.patch("leaderboard.scoring.queueing._dispatch", finish_soon):
            done = self.shell(script, tmp)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertNotIn("not finished in time", done.stderr)
        first = Run.objects.filter(submitter=self.user).order_by("pk").first()
        self.assertIsNotNone(first)
        self.assertEqual(first.model.slug, "my-agent-v2")
        self.assertEqual(first.status, Run.Status.FINISHED)
        self.assertEqual(first.review, Run.Review.PENDING)  # the publish recipe ran on it
        # Every submission the recipes make is there, and nothing else.
        submissions = script.count('-X POST "$SMB/api/v1/runs"')
        self.assertGreaterEqual(submissions, 2)
        self.assertEqual(Run.objects.filter(submitter=self.user).count(), submissions)
        self.assertIn('"finished"', done.stdout)
        self.assertEqual(json.loads((tmp / f"run-{first.pk}.json").read_text())["id"], first.pk)

    @classmethod
    def setUpClass(cls):
        import tempfile

        super().setUpClass()
        cls.tmp_dir = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp_dir.cleanup()
        super().tearDownClass()


class StatusFollowsTheTokenTest(WorldTestCase):
    def setUp(self):
        self.private = make_run(self.model_a, self.spin, submitter=self.alice,
                                review=Run.Review.PRIVATE, status=Run.Status.QUEUED)  # fmt: skip
        self.token, _ = create_token(self.alice, "ci")
        self.url = reverse("run_status", args=[self.private.pk])

    def test_the_owner_s_token_reads_its_private_run_s_status(self):
        response = self.client.get(self.url, HTTP_AUTHORIZATION=f"Bearer {self.token}")
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response.json()["status"], "queued")

    def test_the_owner_s_token_reads_its_private_run_s_export(self):
        url = reverse("run_export_json", args=[self.private.pk])
        response = self.client.get(url, HTTP_AUTHORIZATION=f"Bearer {self.token}")
        self.assertEqual(response.json()["id"], self.private.pk)

    @override_settings(DEBUG=True)
    def test_anyone_else_gets_a_json_404_even_under_debug(self):
        bob_token, _ = create_token(self.bob, "ci")
        for headers in ({}, {"HTTP_AUTHORIZATION": f"Bearer {bob_token}"},
                        {"HTTP_AUTHORIZATION": "Bearer smb_forged"}):  # fmt: skip
            response = self.client.get(self.url, **headers)
            self.assertEqual(response.status_code, 404)
            self.assertEqual(response["Content-Type"], "application/json")
            self.assertEqual(response.json()["error"]["code"], "not_found")


class ListMyRunsTest(WorldTestCase):
    def setUp(self):
        self.token, _ = create_token(self.alice, "ci")
        self.auth = {"HTTP_AUTHORIZATION": f"Bearer {self.token}"}

    def test_only_my_runs_newest_first(self):
        older = make_run(self.model_a, self.spin, submitter=self.alice, review=Run.Review.PRIVATE)
        newer = make_run(self.model_a, self.etcd, submitter=self.alice)
        make_run(self.model_b, self.spin, submitter=self.bob)
        body = self.client.get(reverse("api_runs"), **self.auth).json()
        self.assertEqual([r["id"] for r in body["runs"]], [newer.pk, older.pk])
        self.assertEqual((body["count"], body["pages"], body["next"]), (2, 1, None))

    def test_pages(self):
        model = make_model("many", owner=self.alice)
        for _ in range(api_views.RUNS_PER_PAGE + 1):
            make_run(model, self.spin, submitter=self.alice)
        first = self.client.get(reverse("api_runs"), **self.auth).json()
        self.assertEqual(len(first["runs"]), api_views.RUNS_PER_PAGE)
        second = self.client.get(first["next"], **self.auth).json()
        self.assertEqual((len(second["runs"]), second["page"]), (1, 2))
        beyond = self.client.get(reverse("api_runs") + "?page=3", **self.auth)
        self.assertEqual(beyond.status_code, 404)

    def test_the_list_needs_a_token(self):
        self.assertEqual(self.client.get(reverse("api_runs")).status_code, 401)


class PublishingTwiceSaysSoTest(WorldTestCase):
    def test_the_second_publish_is_a_409_naming_the_state(self):
        run = make_run(self.model_a, self.spin, {"syntax": 1.0}, submitter=self.alice,
                       review=Run.Review.PRIVATE)  # fmt: skip
        token, _ = create_token(self.alice, "ci")
        url = reverse("api_run_publish", args=[run.pk])
        self.client.post(url, HTTP_AUTHORIZATION=f"Bearer {token}")
        again = self.client.post(url, HTTP_AUTHORIZATION=f"Bearer {token}")
        self.assertEqual(again.status_code, 409)
        self.assertIn("published already", again.json()["error"]["message"])
        self.assertNotIn("once it has finished", again.json()["error"]["message"])


class StartedAtTest(WorldTestCase):
    def test_a_finished_run_says_when_a_worker_took_it(self):
        run = make_run(self.model_a, self.spin, submitter=self.alice, status=Run.Status.QUEUED)
        self.assertTrue(run.claim())
        self.assertTrue(run.finish(0.5, {}))
        token, _ = create_token(self.alice, "ci")
        url = reverse("api_run", args=[run.pk])
        body = self.client.get(url, HTTP_AUTHORIZATION=f"Bearer {token}").json()
        self.assertIsNotNone(body["started_at"])
        self.assertLessEqual(body["started_at"], body["finished_at"])


def readme_commands() -> list[tuple[str, list[str]]]:
    """Every `manage.py <command> ...` the README shows (code blocks and the command table),
    with the options it uses."""
    readme = (ROOT / "README.md").read_text()
    found = []
    for name, rest in re.findall(r"manage\.py ([a-z_]+)([^`|#\n]*)", readme):
        found.append((name, re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", rest)))
    return found


@pytest.mark.parametrize(("name", "options"), readme_commands(), ids=lambda v: str(v))
def test_each_readme_command_and_option_exists(name, options):
    from django.core.management import get_commands, load_command_class

    commands = get_commands()
    assert name in commands, f"README names manage.py {name}, which does not exist"
    parser = load_command_class(commands[name], name).create_parser("manage.py", name)
    known = set(parser._option_string_actions)
    assert set(options) <= known, f"manage.py {name}: {set(options) - known} unknown"
