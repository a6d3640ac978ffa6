"""Issue 25 without TLC: release identity and its refusals, the release pages and BibTeX, the
board per release (and unchanged while no release exists), the rescore queue's priority, and
the fallback that attaches runs scored before releases."""

import json
import zipfile
from io import BytesIO, StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from leaderboard.board.boards import get_board
from leaderboard.models import Release, Rescore, Run
from leaderboard.releases.identity import ReleaseError, identity_of, make_release
from leaderboard.releases.rescoring import copy_for_rescore, rescore
from leaderboard.scoring import queueing
from tests.base import WorldTestCase, make_run

TOOLS = {"jar_sha256": "j" * 64, "tlc_version": "TLC 2.15", "sany_version": "SANY 2.2"}


def components(contract="c1", corpus="k1", windows="w1", scorer="2.0.0"):
    return {
        "scorer_version": scorer,
        "tools": dict(TOOLS),
        "tasks": {
            "spin": {
                "contract_version": contract,
                "corpus_version": corpus,
                "windows_sha256": windows,
            },
            "etcd": {"contract_version": "e1", "corpus_version": "ek", "windows_sha256": "ew"},
        },
    }


def fingerprint(contract="c1", corpus="k1", **extra):
    return {"scorer_version": "2.0.0", **TOOLS, "contract_version": contract,
            "corpus_version": corpus, "windows_sha256": "w1", **extra}  # fmt: skip


class ReleasesTest(WorldTestCase):
    def scored_run(self, model, release=None, overall=0.5, **fields):
        run = make_run(model, self.spin, {"syntax": overall}, fingerprint=fingerprint(), **fields)
        if release is not None:
            Run.objects.filter(pk=run.pk).update(release=release)
        return run

    def cell(self, model, release=None):
        cell = get_board(release=release).cell(model.pk, self.spin.pk)
        return cell and cell["run_id"]


class IdentityAndRefusals(ReleasesTest):
    def test_a_duplicate_identity_or_name_is_refused_with_a_clear_message(self):
        make_release("2026.11", "first", components())
        with pytest.raises(ReleaseError, match="release 2026.11 already has this identity"):
            make_release("2026.12", "same", components())
        with pytest.raises(ReleaseError, match="exists already"):
            make_release("2026.11", "other", components(contract="c2"))
        for bad in ("a/b", "x\x00y", "-rc", "a" * 41, "2026 12"):
            with pytest.raises(ReleaseError, match="1-40 letters"):
                make_release(bad, "bad", components(contract="c3"))

    def test_the_windows_hashes_are_not_part_of_the_identity(self):
        assert identity_of(components(windows=None)) == identity_of(components())
        assert identity_of(components(corpus="k2")) != identity_of(components())
        assert identity_of(components(scorer="2.1.0")) != identity_of(components())

    def test_runs_scored_before_releases_are_attached_when_their_fingerprint_matches(self):
        matching = self.scored_run(self.model_a)
        # Scored before the job recorded the corpus: matched on the windows hash.
        old_style = self.scored_run(self.model_b)
        old_fp = {k: v for k, v in fingerprint().items() if k != "corpus_version"}
        Run.objects.filter(pk=old_style.pk).update(fingerprint=old_fp)
        other = self.scored_run(self.model_b)
        Run.objects.filter(pk=other.pk).update(fingerprint=fingerprint(contract="older"))
        release = make_release("2026.12", "first", components())
        attached = set(release.runs.values_list("pk", flat=True))
        assert attached == {matching.pk, old_style.pk}

    def test_rescore_refuses_when_the_current_identity_is_no_release(self):
        with pytest.raises(CommandError, match="make_release"):
            call_command("rescore", stdout=StringIO())


class BoardPerRelease(ReleasesTest):
    def test_with_no_release_the_board_is_as_before_but_hides_rescorings(self):
        run = self.scored_run(self.model_a)
        assert self.cell(self.model_a) == run.pk
        # A better rescoring of the same spec must not reach the board before its release.
        make_run(self.model_a, self.spin, {"syntax": 0.9}, rescore_of=run)
        assert self.cell(self.model_a) == run.pk
        assert self.client.get("/").status_code == 200

    def test_the_default_is_the_newest_approved_release_and_the_url_picks_another(self):
        old = make_release("2026.11", "first", components())
        new = make_release("2026.12", "second", components(contract="c2"))
        old.approve()
        old_run = self.scored_run(self.model_a, release=old, overall=0.4)
        new_run = self.scored_run(self.model_a, release=new, overall=0.9)
        reported = make_run(self.model_b, self.spin, {"syntax": 0.3},
                            provenance="reported", source="the paper")  # fmt: skip
        assert self.cell(self.model_a) == old_run.pk  # the better run waits for approval
        assert self.cell(self.model_a, new) == new_run.pk
        assert self.cell(self.model_b) == reported.pk == self.cell(self.model_b, new)
        page = self.client.get("/?release=2026.12")
        assert page.status_code == 200
        # The board says which release it shows, and whether that one is approved.
        assert 'href="/releases/2026.12/">2026.12</a> (not yet approved)' in page.content.decode()
        default = self.client.get("/").content.decode()
        assert 'href="/releases/2026.11/">2026.11</a>.' in default
        assert self.client.get("/?release=nope").status_code == 404
        new.approve()
        assert Release.board_default() == new
        assert self.cell(self.model_a) == new_run.pk
        note = self.client.get(f"/runs/{old_run.pk}/").content.decode()
        assert "Scored under 2026.11, an older release" in note


class PagesAndArtifacts(ReleasesTest):
    def test_release_list_json_and_page_with_bibtex(self):
        assert self.client.get("/releases.json").json() == {"releases": [], "board_default": None}
        release = make_release("2026.12", "P4 credits only behaviour the spec has", components())
        release.approve()
        listing = self.client.get("/releases.json").json()
        assert listing["board_default"] == "2026.12"
        assert listing["releases"][0]["identity"] == release.identity
        assert "2026.12" in self.client.get("/releases/").content.decode()
        page = self.client.get("/releases/2026.12/").content.decode()
        assert "@misc{sysmobench202612," in page and release.identity in page
        assert "P4 credits only behaviour the spec has" in page
        assert self.client.get("/releases/nope/").status_code == 404
        # A name no release can have is no query at all (a NUL byte made PostgreSQL raise).
        for odd in ("/releases/%00/", "/releases/%00/diff.json", "/?release=%00", "/?release=a b"):
            assert self.client.get(odd).status_code == 404, odd
        diff = self.client.get("/releases/2026.12/diff.json").json()
        assert diff["runs"] == [] and diff["approved"] is True

    def test_a_reported_runs_bundle_holds_the_published_figures_and_their_source(self):
        run = make_run(self.model_b, self.spin, {"syntax": 0.3},
                       provenance="reported", source="SysMoBench paper, Table 3")  # fmt: skip
        archive = zipfile.ZipFile(BytesIO(self.client.get(f"/runs/{run.pk}/bundle.zip").content))
        published = json.loads(archive.read("published.json"))
        assert published["source"] == "SysMoBench paper, Table 3"
        assert published["phases"]["syntax"] == 0.3


@override_settings(
    RQ_QUEUES={"evaluation": {"URL": "redis://x"}, "evaluation-rescore": {"URL": "redis://x"}}
)
class RescoreQueue(ReleasesTest):
    def test_rescorings_go_to_the_low_priority_queue_and_count_after_submissions(self):
        original = self.scored_run(self.model_a)
        rescoring = copy_for_rescore(original)
        submission = make_run(self.model_a, self.spin, spec_text="x", status="queued")
        assert queueing.queue_for(rescoring) == queueing.RESCORE_QUEUE_NAME
        assert queueing.queue_for(submission) == queueing.QUEUE_NAME
        # The rescoring was queued first, yet the submission is next.
        assert queueing.queue_position(submission) == 1
        assert queueing.queue_position(rescoring) == 2

    @override_settings(RQ_QUEUES={"evaluation": {"URL": "redis://x"}})
    def test_without_the_rescore_queue_configured_one_queue_serves_all(self):
        rescoring = copy_for_rescore(self.scored_run(self.model_a))
        assert queueing.queue_for(rescoring) == queueing.QUEUE_NAME


class RescoreRecords(ReleasesTest):
    def test_a_failed_rescoring_is_retried_and_a_pending_one_is_not(self):
        original = self.scored_run(self.model_a)
        release = make_release("2026.12", "second", components(contract="c2"))
        assert rescore(release, dry_run=True).queued == 1
        assert not Rescore.objects.exists() and Run.objects.count() == 1
        with self.captureOnCommitCallbacks(execute=False):
            assert rescore(release).queued == 1
            assert rescore(release).queued == 0
        record = Rescore.objects.get(run=original, release=release)
        assert record.old["phases"]["syntax"]["score"] == 0.5
        first_copy = record.new_run
        Run.objects.filter(pk=first_copy.pk).update(status="failed", failure_reason="machine")
        with self.captureOnCommitCallbacks(execute=False):
            assert rescore(release).queued == 1
        record.refresh_from_db()
        assert record.state == Rescore.State.PENDING and record.new_run_id != first_copy.pk
        original.refresh_from_db()
        assert original.phase_results.get().score == 0.5 and original.release is None

    def test_the_admin_action_approves_a_release(self):
        release = make_release("2026.12", "second", components())
        self.client.force_login(self.maintainer)
        response = self.client.post(
            "/admin/leaderboard/release/",
            {"action": "approve_releases", "_selected_action": [release.pk]},
        )
        assert response.status_code == 302
        release.refresh_from_db()
        assert release.approved and Release.board_default() == release
