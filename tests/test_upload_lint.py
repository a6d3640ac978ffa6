"""Upload lint: every bad input gets its own message next to its field, nothing is queued,
and the submitter's text survives the round trip."""

from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from leaderboard.models import ModelUnderTest, Run
from tests.base import WorldTestCase, make_run

REFERENCE = Path(settings.TASKS_DATA_DIR) / "spin" / "reference" / "spin.tla"
GOOD = REFERENCE.read_text()


def field_errors(response, field):
    return response.context["form"].errors.get(field, [])


class UploadLintTest(WorldTestCase):
    def setUp(self):
        self.client.force_login(self.alice)  # model-a is alice's

    def post(self, spec_text="", spec_file=None, **fields):
        data = {"task": "spin", "model": "model-a", "spec_text": spec_text, **fields}
        if spec_file is not None:
            data["spec_file"] = spec_file
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            response = self.client.post(reverse("submit"), data)
        self.queued = callbacks
        return response

    def assert_rejected(self, response, field, fragment):
        self.assertEqual(response.status_code, 200)
        errors = field_errors(response, field)
        self.assertTrue(any(fragment in e for e in errors), f"{field}: {errors!r}")
        self.assertContains(response, f'id="errors-{field}"')
        self.assertEqual(Run.objects.count(), 0)
        self.assertEqual(self.queued, [])

    @override_settings(UPLOAD_MAX_BYTES=1024)
    def test_it_rejects_an_oversized_file(self):
        big = SimpleUploadedFile("spin.tla", GOOD.encode() + b"\\* padding\n" * 200)
        response = self.post(spec_file=big)
        self.assert_rejected(
            response, "spec_file", "is 4,040 bytes (3.9 KiB); the limit is 1,024 bytes"
        )

    # Under the body cap (which answers 413 before the form runs: test_upload_check_is_bounded),
    # so that the form's own message is what is tested here.
    @override_settings(REQUEST_BODY_MAX_BYTES=8 * 1024 * 1024)
    def test_a_5_mb_file_is_refused_with_its_real_size(self):
        big = SimpleUploadedFile("spin.tla", b"x" * 5_000_000)
        response = self.post(spec_file=big)
        limit = settings.UPLOAD_MAX_BYTES
        self.assert_rejected(
            response, "spec_file", f"The spec is 5,000,000 bytes (4.8 MiB); the limit is {limit:,}"
        )

    @override_settings(UPLOAD_MAX_BYTES=1024)
    def test_a_file_just_over_the_limit_states_both_sizes_in_bytes(self):
        response = self.post(spec_file=SimpleUploadedFile("spin.tla", b"x" * 1025))
        self.assert_rejected(
            response, "spec_file", "The spec is 1,025 bytes (1.0 KiB); the limit is 1,024 bytes"
        )

    @override_settings(UPLOAD_MAX_BYTES=1024)
    def test_it_rejects_oversized_pasted_text(self):
        response = self.post(spec_text=GOOD + "\\* padding\n" * 200)
        self.assert_rejected(
            response, "spec_text", "is 4,040 bytes (3.9 KiB); the limit is 1,024 bytes"
        )
        self.assertContains(response, "padding")

    def test_it_rejects_a_file_that_is_not_utf8(self):
        latin1 = GOOD.replace("Reference spec", "Référence spec").encode("latin-1")
        response = self.post(spec_file=SimpleUploadedFile("spin.tla", latin1))
        self.assert_rejected(response, "spec_file", "not UTF-8")

    def test_a_module_named_otherwise_than_the_task_is_accepted(self):
        # Specs written for the original benchmark are named `1_mutex`: the scorer uses the
        # spec's own name in every phase.
        response = self.post(spec_text=GOOD.replace("MODULE spin", "MODULE 1_spin"))
        self.assertEqual(response.status_code, 302)

    def test_it_rejects_a_forbidden_module_and_keeps_the_text(self):
        text = GOOD.replace("EXTENDS TLC, FiniteSets", "EXTENDS TLC, FiniteSets, IOUtils")
        response = self.post(spec_text=text)
        self.assert_rejected(response, "spec_text", "EXTENDS IOUtils is not allowed")
        self.assertContains(response, "StartLock(t) ==")

    def test_an_uploaded_file_is_shown_as_text_after_a_lint_error(self):
        text = GOOD.replace("EXTENDS TLC, FiniteSets", "EXTENDS TLC, FiniteSets, IOUtils")
        response = self.post(spec_file=SimpleUploadedFile("spin.tla", text.encode()))
        self.assert_rejected(response, "spec_file", "EXTENDS IOUtils")
        self.assertContains(response, "IOUtils")

    def test_it_rejects_two_modules(self):
        text = GOOD + "\n---- MODULE extra ----\n====\n"
        self.assert_rejected(self.post(spec_text=text), "spec_text", "declares 2 modules")

    def test_it_rejects_tlcset(self):
        text = GOOD.replace(
            "/\\ UNCHANGED lockState\n", '/\\ UNCHANGED lockState\n  /\\ TLCSet("exit", TRUE)\n', 1
        )
        response = self.post(spec_text=text)
        self.assert_rejected(response, "spec_text", "TLCSet is not allowed")
        self.assertIn("Line 28", field_errors(response, "spec_text")[0])

    def test_tlcset_in_a_comment_is_not_an_error_of_its_own(self):
        text = GOOD.replace("EXTENDS TLC", "\\* never TLCSet\nEXTENDS IOUtils, TLC")
        response = self.post(spec_text=text)
        self.assert_rejected(response, "spec_text", "EXTENDS IOUtils is not allowed")

    def test_it_rejects_extends_ioutils(self):
        response = self.post(
            spec_text=GOOD.replace("EXTENDS TLC, FiniteSets", "EXTENDS TLC,\n  IOUtils")
        )
        self.assert_rejected(response, "spec_text", "Line 5: EXTENDS IOUtils is not allowed")
        self.assertIn("FiniteSetsExt", field_errors(response, "spec_text")[0])

    def test_it_asks_for_a_spec(self):
        self.assert_rejected(self.post(), "spec_text", "Upload a .tla file or paste the spec")

    def test_a_new_model_needs_an_organisation(self):
        response = self.post(spec_text=GOOD, model="", new_model_name="Fresh Model")
        self.assert_rejected(response, "new_model_organisation", "organisation")
        self.assertFalse(ModelUnderTest.objects.filter(slug="fresh-model").exists())

    def test_an_existing_model_name_is_not_created_twice(self):
        response = self.post(spec_text=GOOD, model="", new_model_name="Model A",
                             new_model_organisation="Org A")  # fmt: skip
        self.assert_rejected(response, "new_model_name", "You have a model 'Model A' already")

    def test_a_bad_adapter_is_reported_on_the_adapter_field(self):
        response = self.post(spec_text=GOOD, adapter_text="variables:\n  nosuch: 'TRUE'\n")
        self.assert_rejected(response, "adapter_text", "unknown schema variable")


@pytest.mark.tla
class UploadSanyTest(WorldTestCase):
    def setUp(self):
        self.client.force_login(self.alice)

    def test_it_reports_a_sany_parse_error_with_its_line(self):
        text = GOOD.replace(
            '  /\\ pc\' = [pc EXCEPT ![t] = "acquiring"]', "  /\\ pc' = [pc EXCEPT ![t] = ", 1
        )
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            response = self.client.post(
                reverse("submit"), {"task": "spin", "model": "model-a", "spec_text": text}
            )
        errors = field_errors(response, "spec_text")
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("SANY rejected the module", errors[0])
        self.assertRegex(errors[0], r"line 2[4-6]")
        self.assertEqual((Run.objects.count(), callbacks), (0, []))
        self.assertContains(response, "MODULE spin")

    def test_a_good_spec_is_stored_queued_and_redirects_to_its_page(self):
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            response = self.client.post(
                reverse("submit"),
                {"task": "spin", "model": "", "new_model_name": "Brand New LLM",
                 "new_model_organisation": "New Org", "new_model_kind": "agent",
                 "spec_file": SimpleUploadedFile("spin.tla", GOOD.encode())},
            )  # fmt: skip
        run = Run.objects.get()
        self.assertRedirects(response, reverse("run_detail", args=[run.pk]))
        self.assertEqual((run.status, run.spec_text, run.provenance), ("queued", GOOD, "verified"))
        self.assertEqual((run.model.slug, run.model.organisation, run.model.kind),
                         ("brand-new-llm", "New Org", "agent"))  # fmt: skip
        self.assertEqual(len(callbacks), 1)
        self.assertEqual(
            (run.submitter, run.model.owner, run.review), (self.alice,) * 2 + ("private",)
        )
        page = self.client.get(reverse("run_detail", args=[run.pk]))
        self.assertContains(page, "position 1 in the queue")
        self.assertContains(page, "run_progress.js")


class ResubmitTest(WorldTestCase):
    def setUp(self):
        self.client.force_login(self.bob)  # model-b is bob's

    def test_the_form_is_prefilled_from_an_earlier_run(self):
        run = make_run(self.model_b, self.etcd, phases={"syntax": 0.5},
                       spec_text="---- MODULE etcd ----\nEXTENDS Naturals\n====\n",
                       adapter_text="variables: {}\n")  # fmt: skip
        response = self.client.get(reverse("submit"), {"from": run.pk})
        form = response.context["form"]
        self.assertEqual(form["task"].value(), "etcd")
        self.assertEqual(form["model"].value(), "model-b")
        self.assertContains(response, "EXTENDS Naturals")
        self.assertContains(response, "variables: {}")

    def test_the_run_page_links_to_resubmission(self):
        run = make_run(self.model_b, self.etcd, phases={"syntax": 0.5})
        page = self.client.get(reverse("run_detail", args=[run.pk]))
        self.assertContains(page, f"{reverse('submit')}?from={run.pk}")
