"""The upload check cannot be abused: a linear pre-scan refuses what would make the parser slow
or the database fail, a body over the cap is refused unread with its real size, the parse and
SANY run in a child process killed at LINT_TIMEOUT_SECONDS, at most LINT_CONCURRENCY at once,
and a spec must be a real module with the contract's names (after the adapter)."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from django.conf import settings
from django.test import Client, override_settings
from django.urls import reverse

from evaluation.upload import prescan
from leaderboard.accounts.tokens import create_token
from leaderboard.models import Run
from leaderboard.shared.ratelimit import Limited
from leaderboard.submit.lint_slots import lint_slot
from tests.base import WorldTestCase

GOOD = (Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla").read_text()


def test_the_prescan_names_the_line_of_each_problem():
    assert prescan.first_problem("a\nb\x00", "The spec") == (
        "The spec contains a NUL byte (line 2); remove it."
    )
    assert "U+DC00, line 3" in prescan.first_problem("\n\n\udc00")
    assert prescan.first_problem("ok\n" + "y" * 4001) == (
        "The spec: line 2 is 4,001 characters long; the limit is 4,000 (break it into "
        "shorter lines)."
    )
    deep = "x == " + "<<" * 60 + "(" * 41
    assert "nests brackets more than 100 deep (line 1)" in prescan.first_problem(deep)
    chain = "x == " + "- \n" * 101 + "1"
    assert "chains more than 100 prefix operators (- ~ \\lnot) in a row (line 1)" in (
        prescan.first_problem(chain)
    )
    assert prescan.first_problem("-" * 3000 + "\nx == - - ~ 1") == ""  # separators, short chains
    # Closers never take the depth below zero, and balanced nesting at the limit passes.
    assert prescan.first_problem(")" * 500 + "(" * 100 + ")" * 100) == ""


def test_texts_built_to_slow_a_backtracking_scan_pass_the_prescan():
    # The scan's time on these is printed by bench/upload_check.py; here: no false refusal.
    for text in (
        ("Next == /\\ x' = [x EXCEPT ![1] = (x[1] + 1)] /\\ UNCHANGED <<y>>\n" * 4000),
        ("- " * 99 + "x\n") * 1400,
        ("- " * 60 + "(* c \\* *)\n") * 2000,
    ):
        assert prescan.first_problem(text[:262144]) == ""


def test_a_slot_is_freed_when_its_holder_dies(tmp_path, settings):
    settings.LINT_SLOT_DIR = tmp_path
    settings.LINT_CONCURRENCY = 1
    settings.LINT_SLOT_WAIT_SECONDS = 0.2
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl,os,sys,time;"
         f"fd=os.open({str(tmp_path / 'slot-0.lock')!r},os.O_RDWR|os.O_CREAT);"
         "fcntl.flock(fd,fcntl.LOCK_EX);print('held',flush=True);time.sleep(60)"],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    assert holder.stdout.readline().strip() == b"held"
    try:
        try:
            with lint_slot():
                raise AssertionError("the slot was free while another process held it")
        except Limited as busy:
            assert busy.retry_after == round(settings.LINT_TIMEOUT_SECONDS)
    finally:
        holder.kill()
        holder.wait()
    with lint_slot():
        pass


class BoundedCheckTest(WorldTestCase):
    def setUp(self):
        self.client = Client(raise_request_exception=False)
        self.client.force_login(self.alice)

    def post(self, spec, **fields):
        data = {"task": "spin", "model": "model-a", "spec_text": spec, **fields}
        return self.client.post(reverse("submit"), data)

    def spec_errors(self, response, field="spec_text"):
        self.assertEqual(response.status_code, 200)
        return response.context["form"].errors.get(field, [])

    def test_a_100_mb_body_is_refused_unread_with_its_real_size(self):
        response = self.client.generic(
            "POST", reverse("submit"), b"x" * 10, CONTENT_LENGTH=str(100 * 1024 * 1024)
        )
        self.assertEqual(response.status_code, 413)
        self.assertIn(
            "The request body is 104,857,600 bytes (100.0 MiB); the limit is",
            response.content.decode(),
        )

    def test_deep_nesting_is_refused_before_any_parser_runs(self):
        for depth in (10_000, 20_000):
            spec = f"---- MODULE spin ----\nx ==\n{'(' * depth}1{')' * depth}\n====\n"
            spec = "\n".join(spec[i : i + 3000] for i in range(0, len(spec), 3000))
            # The pre-scan's own message: refused before tree-sitter or SANY saw it.
            errors = self.spec_errors(self.post(spec))
            self.assertIn("nests brackets more than 100 deep", errors[0])
        self.assertEqual(Run.objects.count(), 0)

    @override_settings(LINT_TIMEOUT_SECONDS=0.2)
    def test_a_check_over_its_time_is_killed_and_refuses_the_upload(self):
        errors = self.spec_errors(self.post(GOOD))
        self.assertEqual(errors[0][:45], "The check did not finish within 0.2 s; simpli")
        self.assertEqual(Run.objects.count(), 0)

    def test_every_slot_busy_is_a_429_that_says_when_to_retry(self):
        with self.settings(
            LINT_SLOT_DIR=Path(self.enterContext(tempfile.TemporaryDirectory())),
            LINT_CONCURRENCY=1,
            LINT_SLOT_WAIT_SECONDS=0.1,
        ):
            with lint_slot():
                response = self.post(GOOD)
                api_user_response = self.client.get(reverse("submit"))
        self.assertEqual(response.status_code, 429)
        self.assertEqual(response["Retry-After"], str(round(settings.LINT_TIMEOUT_SECONDS)))
        self.assertContains(response, "busy checking other uploads", status_code=429)
        self.assertEqual(api_user_response.status_code, 200)
        self.assertEqual(Run.objects.count(), 0)

    def test_an_empty_module_is_refused(self):
        errors = self.spec_errors(self.post("---- MODULE spin ----\n====\n"))
        self.assertEqual(
            errors, ["The module is empty: it declares no VARIABLES and defines no operators."]
        )

    def test_missing_contract_names_are_listed_with_a_starter_adapter(self):
        spec = GOOD.replace("AcquireLock", "Grab").replace("pc", "phase")
        (message,) = self.spec_errors(self.post(spec))
        self.assertIn("lacks the contract's variable pc, action AcquireLock.", message)
        self.assertIn(
            "variables:\n  pc: <your expression for pc>\nactions:\n"
            "  AcquireLock: <YourAcquireLock>(actor)\n  ReleaseLock: ReleaseLock(actor)",
            message,
        )

    def test_an_adapter_that_maps_the_names_lets_the_spec_through(self):
        spec = GOOD.replace("AcquireLock", "Grab")
        adapter = "actions:\n  AcquireLock: Grab(actor)\n  ReleaseLock: ReleaseLock(actor)\n"
        response = self.post(spec, adapter_text=adapter)
        self.assertEqual(response.status_code, 302)
        self.assertEqual(Run.objects.get().adapter_text, adapter)

    def test_the_api_gets_the_same_refusals(self):
        raw, _ = create_token(self.alice, "ci")
        body = json.dumps(
            {"task": "spin", "model": "model-a", "spec_text": "---- MODULE spin ----\n====\n"}
        )
        response = Client().post(reverse("api_runs"), body, content_type="application/json",
                                 HTTP_AUTHORIZATION=f"Bearer {raw}")  # fmt: skip
        self.assertEqual(response.status_code, 400)
        self.assertIn("The module is empty", response.json()["error"]["fields"]["spec_text"][0])
