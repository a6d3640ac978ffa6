"""A new user's first hour without rough edges (docs/decisions/0030-first-hour-and-peers.md): the
featured comparison is an informative pair; a published run awaiting review says so; the compare
headline agrees with its per-action table; the API is documented on the site; the wait estimate
counts the job in progress; a failed run is not shown as on the board and its internal error stays
off the task page; and the small things (the submit form's model, "Resubmit", one token per POST,
compare.json's errors, leaderboard.json's release, the TLC build date, P2's state counts, the ≠
footnote)."""

import re
import zipfile
from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from leaderboard.accounts.tokens import create_token
from leaderboard.models import ApiToken, Release, Run
from leaderboard.scoring import queueing
from leaderboard.shared.plain_words import KNOWN_BUILD_DATES, dated_banner
from tests.base import (
    WorldTestCase,
    make_action_result,
    make_model,
    make_run,
    make_window_result,
)

PHASES = {"syntax": 1.0, "runtime": 1.0, "conformance": 0.5, "invariant": 1.0}


def conformance_of(run):
    return run.phase_results.get(phase="conformance")


def with_actions(run, passed: dict[str, int], total=6):
    for action, count in passed.items():
        make_action_result(conformance_of(run), action, count, total)
    return run


class FeaturedPairTest(WorldTestCase):
    def setUp(self):
        # Two archive entries that rank first and accept no window at all (0/6 vs 0/6)...
        self.archive = [make_model(f"archive-{i}", organisation="Archive") for i in (1, 2)]
        for model in self.archive:
            run = make_run(model, self.spin, phases={**PHASES, "invariant": 1.0})
            with_actions(run, {"Acquire": 0, "Release": 0})
            etcd = make_run(model, self.etcd, phases=PHASES)
            with_actions(etcd, {"Propose": 0})
        # ... and two models whose specs accept some windows, on one shared task only.
        with_actions(make_run(self.model_a, self.spin, phases=PHASES), {"Acquire": 6, "Release": 2})
        with_actions(make_run(self.model_b, self.spin, phases=PHASES), {"Acquire": 3, "Release": 0})

    def test_the_home_page_features_a_pair_whose_specs_accept_windows(self):
        featured = self.client.get(reverse("leaderboard")).context["featured"]
        self.assertEqual((featured["a"], featured["b"]), ("Model A", "Model B"))
        counts = [(r["a"]["passed"], r["b"]["passed"]) for r in featured["actions"]]
        self.assertIn((6, 3), counts)

    def test_with_only_pairs_that_accept_nothing_nothing_is_featured(self):
        Run.objects.filter(model__in=[self.model_a, self.model_b]).delete()
        self.assertIsNone(self.client.get(reverse("leaderboard")).context["featured"])


class AwaitingReviewTest(WorldTestCase):
    def setUp(self):
        self.pending = make_run(self.model_a, self.spin, PHASES, submitter=self.alice,
                                review=Run.Review.PENDING)  # fmt: skip
        make_run(self.model_b, self.spin, PHASES)

    def test_the_model_page_says_awaiting_review_not_not_submitted(self):
        page = self.client.get(reverse("model_detail", args=["model-a"])).content.decode()
        row = page.split('data-task="spin"')[1].split("</tr>")[0]
        self.assertIn("awaiting review", row)
        self.assertNotIn("not submitted", row)
        self.assertIn(f'href="/runs/{self.pending.pk}/"', row)
        # A task with nothing published still reads "not submitted".
        etcd = page.split('data-task="etcd"')[1].split("</tr>")[0]
        self.assertIn("not submitted", etcd)

    def test_the_compare_page_says_it_too(self):
        response = self.client.get(reverse("compare"), {"a": "model-a", "b": "model-b"})
        html = response.content.decode()
        row = html.split('class="compare-tasks"')[1].split('data-task="spin"')[1].split("</tr>")[0]
        self.assertIn("awaiting review", row)
        self.assertNotIn("not submitted", row)
        phases = html.split('id="compare-task-phases"')[1].split('data-task="spin"')[1]
        self.assertIn('data-side="a">awaiting review<', phases.split("</tr>")[0])

    def test_a_private_run_is_still_not_submitted(self):
        self.pending.review = Run.Review.PRIVATE
        self.pending.save()
        make_run(self.model_a, self.etcd, PHASES)  # the model is public through another task
        page = self.client.get(reverse("model_detail", args=["model-a"])).content.decode()
        self.assertNotIn("awaiting review", page.split('data-task="spin"')[1].split("</tr>")[0])


class CompareHeadlineTest(WorldTestCase):
    """Both runs fail every action under zero tolerance (no differing unit), yet six windows of
    Acquire only B accepts: the per-action table finds B better, and so must the headline."""

    def setUp(self):
        run_a = make_run(self.model_a, self.spin, phases=PHASES)
        run_b = make_run(self.model_b, self.spin, phases=PHASES)
        for run in (run_a, run_b):
            with_actions(run, {"Acquire": 3})
        for i in range(6):
            make_window_result(conformance_of(run_a), "Acquire", "fail", window_id=f"w{i}")
            make_window_result(conformance_of(run_b), "Acquire", "pass", window_id=f"w{i}")

    def test_the_headline_reads_the_test_the_table_prints(self):
        response = self.client.get(reverse("compare"), {"a": "model-a", "b": "model-b"})
        html = response.content.decode()
        headline = html.split('id="paired-headline"')[1].split("</span>\n")[0]
        table = html.split('id="compare-window-test"')[1].split("</table>")[0]
        self.assertIn("B is better (p &lt; 0.05)", table)
        self.assertIn("B is better (p &lt; 0.05)", headline)
        self.assertNotIn("too few", headline)
        pooled = response.context["windows_test"]["pooled"]
        self.assertEqual(response.context["paired"]["headline"]["reading"], pooled["reading"])

    def test_the_json_export_carries_the_same_headline(self):
        body = self.client.get(reverse("compare_export", args=["json"]),
                               {"a": "model-a", "b": "model-b"}).json()  # fmt: skip
        self.assertEqual(body["headline"]["basis"], "windows")
        self.assertEqual(body["headline"]["reading"], body["window_test_pooled"]["reading"])
        self.assertEqual([s["action"] for s in body["headline"]["significant"]], ["Acquire"])


class ApiDocumentationTest(WorldTestCase):
    def test_the_api_is_a_page_of_the_site(self):
        page = self.client.get(reverse("api_docs"))
        self.assertContains(page, "POST /api/v1/runs")
        self.assertContains(page, "<h1>JSON API (v1)</h1>", html=True)
        self.assertContains(page, "export SMB=http://testserver")

    def test_submit_page_my_runs_and_footer_link_it_without_repository_paths(self):
        docs = reverse("api_docs")
        self.client.force_login(self.alice)
        for name in ("submit", "my_runs", "leaderboard"):
            html = self.client.get(reverse(name)).content.decode()
            self.assertIn(f'href="{docs}"', html, name)
            self.assertNotIn("docs/API.md", html, name)
            self.assertNotIn("examples in the README", html, name)
        self.assertNotRegex(self.client.get(docs).content.decode(), r"docs/\w+\.md|see README")


class WaitEstimateTest(WorldTestCase):
    def scored(self, minutes, **fields):
        end = timezone.now() - timedelta(hours=1)
        return make_run(self.model_b, self.spin, {"syntax": 1.0},
                        started_at=end - timedelta(minutes=minutes), finished_at=end,
                        **fields)  # fmt: skip

    def test_the_job_in_progress_and_each_queue_s_own_mean_count(self):
        for minutes in (4, 5):  # bulk loads: mean 4.5 minutes
            self.scored(minutes)
        for minutes in (1, 3):  # submissions: mean 2 minutes
            self.scored(minutes, submitter=self.bob)
        # A bulk load started a minute ago: 3.5 minutes left.
        make_run(self.model_b, self.etcd, status=Run.Status.RUNNING,
                 started_at=timezone.now() - timedelta(minutes=1))  # fmt: skip
        mine = make_run(self.model_a, self.spin, submitter=self.alice, status=Run.Status.QUEUED)
        estimate = queueing.wait_estimate(mine)
        self.assertEqual(estimate["in_progress_seconds"], round(3.5 * 60))
        self.assertEqual(estimate["seconds"], round(3.5 * 60 + 2 * 60))
        self.assertEqual(estimate["position"], 1)

    def test_the_run_json_has_it_at_the_top_as_under_progress(self):
        self.scored(2, submitter=self.bob)
        mine = make_run(self.model_a, self.spin, submitter=self.alice, status=Run.Status.QUEUED,
                        review=Run.Review.PRIVATE)  # fmt: skip
        token, _ = create_token(self.alice, "ci")
        auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
        for url in (reverse("api_run", args=[mine.pk]), reverse("run_export_json", args=[mine.pk])):
            body = self.client.get(url, **auth).json()
            self.assertIsNotNone(body["queue_wait_estimate"], url)
            self.assertEqual(body["queue_wait_estimate"], body["progress"]["queue_wait_estimate"])
            self.assertEqual(body["queue_position"], body["progress"]["queue_position"])


class FailedRunTest(WorldTestCase):
    def setUp(self):
        # A bulk load is approved when queued; it failed: no trace data had been imported.
        reason = "the task 'spin' has trace data but none has been imported (KeyError: corpus)"
        self.failed = make_run(
            self.model_a, self.spin, status=Run.Status.FAILED, failure_reason=reason
        )

    def test_its_page_does_not_say_it_is_on_the_board(self):
        page = self.client.get(self.failed.get_absolute_url()).content.decode()
        review = page.split('id="run-review"')[1].split("</section>")[0]
        self.assertIn("not on the board", review)
        self.assertNotIn("<strong>on the board</strong>", review)

    def test_the_task_page_shows_no_internal_error(self):
        page = self.client.get(reverse("task_detail", args=["spin"])).content.decode()
        self.assertIn("not scored", page)
        self.assertNotIn("none has been imported", page)
        self.assertNotIn("KeyError", page)


class SmallThingsTest(WorldTestCase):
    def test_the_submit_form_defaults_to_the_user_s_model(self):
        self.client.force_login(self.alice)
        form = self.client.get(reverse("submit")).context["form"]
        self.assertEqual(form.initial["model"], "model-a")
        self.client.force_login(self.maintainer)  # no model: a new one is the default
        self.assertIsNone(self.client.get(reverse("submit")).context["form"].initial["model"])

    def test_anonymous_visitors_see_no_resubmit(self):
        run = make_run(self.model_a, self.spin, PHASES, submitter=self.alice)
        self.assertNotContains(self.client.get(run.get_absolute_url()), "Resubmit")
        self.client.force_login(self.alice)
        self.assertContains(self.client.get(run.get_absolute_url()), "Resubmit")

    def test_reloading_after_creating_a_token_makes_no_second_one(self):
        self.client.force_login(self.alice)
        created = self.client.post(reverse("token_create"), {"name": "laptop"})
        self.assertEqual(created.status_code, 302)
        shown = self.client.get(created["Location"])
        self.assertRegex(shown.content.decode(), r"<code>smb_[^<]+</code>")
        again = self.client.get(created["Location"])  # the reload
        self.assertNotRegex(again.content.decode(), r"<code>smb_[^<]+</code>")
        self.assertEqual(ApiToken.objects.filter(user=self.alice).count(), 1)

    def test_compare_json_errors_are_the_api_s_json_without_page_words(self):
        response = self.client.get(reverse("compare_export", args=["json"]), {"a": "nosuch"})
        self.assertEqual(response.status_code, 400)
        error = response.json()["error"]
        self.assertEqual(error["code"], "unknown_model")
        self.assertNotIn("below", error["message"])
        self.assertNotIn("&#", error["message"])

    def test_leaderboard_json_says_which_release_it_shows(self):
        self.assertIsNone(self.client.get(reverse("leaderboard_export", args=["json"])).json()[
            "release"])  # fmt: skip
        release = Release.objects.create(name="2026.12", identity="abc", components={},
                                         approved_at=timezone.now())  # fmt: skip
        body = self.client.get(reverse("leaderboard_export", args=["json"])).json()
        self.assertEqual((body["release"]["name"], body["release"]["default"]), ("2026.12", True))
        self.assertEqual(body["release"]["url"], release.get_absolute_url())

    def test_the_release_page_gives_tlc_s_build_date(self):
        banner = "TLC2 Version 2.15 of Day Month 20?? (rev: d5b5a7f)"
        Release.objects.create(name="2026.12", identity="abc",
                               components={"tools": {"tlc_version": banner}})  # fmt: skip
        page = self.client.get(reverse("release_detail", args=["2026.12"])).content.decode()
        self.assertIn("TLC2 Version 2.15 of 30 January 2020 (rev: d5b5a7f)", page)
        self.assertNotIn("20??", page)
        self.assertEqual(
            dated_banner("TLC2 Version 2.16 of 01 May 2024"), "TLC2 Version 2.16 of 01 May 2024"
        )

    def test_the_known_build_date_is_the_jar_s_own(self):
        from evaluation.tla.tools import jar_path

        with zipfile.ZipFile(jar_path()) as jar:
            manifest = jar.read("META-INF/MANIFEST.MF").decode()
        rev = re.search(r"X-Git-ShortRevision: (\w+)", manifest).group(1)
        date = re.search(r"Implementation-Version: \S+ (\d{4}-\d\d-\d\d)", manifest).group(1)
        self.assertEqual(KNOWN_BUILD_DATES[rev], date)

    def test_p2_state_counts_have_labels(self):
        run = make_run(self.model_a, self.spin, PHASES)
        runtime = run.phase_results.get(phase="runtime")
        counts = {"line": 4, "generated": 12, "distinct": 7, "fired": True}
        make_action_result(runtime, "Acquire", 1, 1, detail=counts)
        html = self.client.get(run.get_absolute_url()).content.decode()
        table = html.split('class="actions runtime-actions"')[1].split("</table>")[0]
        head = table.split("</thead>")[0]
        self.assertIn(">states generated<", head)
        self.assertIn(">distinct states<", head)

    def test_the_differs_footnote_only_where_a_row_is_marked(self):
        run = make_run(self.model_a, self.spin, PHASES)
        accepted = make_window_result(conformance_of(run), verdict="pass", window_id="ok")
        page = self.client.get(reverse("window_detail", args=[run.pk, accepted.pk]))
        self.assertNotContains(page, "Rows marked ≠")
        differs = [{"variable": "lockState", "trace": "locked", "spec": "unlocked"}]
        rejected = make_window_result(
            conformance_of(run), verdict="fail", window_id="bad", detail={"differences": differs}
        )
        page = self.client.get(reverse("window_detail", args=[run.pk, rejected.pk]))
        self.assertContains(page, "diff-mark")
        self.assertContains(page, "Rows marked ≠")
