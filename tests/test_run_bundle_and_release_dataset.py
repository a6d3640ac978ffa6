"""Issue 25 artifacts on a really scored run: `/runs/<id>/bundle.zip` (manifest, inputs, verdicts,
counterexamples, the phases' details) for whoever may see the run, and
`/releases/<name>/dataset.jsonl`, one public run of the release per line."""

import io
import json
import zipfile

import pytest
from django.test import TestCase, override_settings

from leaderboard.models import Run
from leaderboard.releases.identity import make_release
from tests.base import make_model, make_run, make_user
from tests.release_support import import_spin, scored, spec, spin_contracts


@pytest.mark.tla
class ArtifactsOfScoredRuns(TestCase):
    @pytest.fixture(autouse=True)
    def _contracts(self, tmp_path):
        self.tasks_dir = spin_contracts(tmp_path)

    def test_bundle_dataset_and_who_may_download(self):
        with override_settings(TASKS_DATA_DIR=self.tasks_dir):
            task = import_spin(self.tasks_dir)
            release = make_release("2026.12", "first")
            alice, bob = make_user("alice"), make_user("bob", password="pw-bob")
            model = make_model("model-a", owner=alice)
            public = scored(make_run(model, task, spec_text=spec("dropped_guard"), submitter=alice))
            private = scored(
                make_run(
                    model, task, spec_text=spec("spin"), submitter=alice, review=Run.Review.PRIVATE
                )
            )
        assert public.release == release and private.release == release
        self._bundle_holds_the_run(public, release)
        self._private_bundle_is_404_for_others(private, alice, bob)
        self._dataset_lists_public_runs_only(release, public, private)

    def _bundle_holds_the_run(self, run, release):
        response = self.client.get(f"/runs/{run.pk}/bundle.zip")
        assert response.status_code == 200 and response["Content-Type"] == "application/zip"
        archive = zipfile.ZipFile(io.BytesIO(response.content))
        names = set(archive.namelist())
        assert {"manifest.json", "spec/spin.tla", "phases/syntax.json"} <= names
        manifest = json.loads(archive.read("manifest.json"))
        assert manifest["release"] == "2026.12" and manifest["release_identity"] == release.identity
        assert manifest["fingerprint"] == run.fingerprint
        assert manifest["hashes"]["contract_version"] == run.fingerprint["contract_version"]
        assert manifest["policy"]["weights"] == run.fingerprint["weights"]
        assert "generated_modules" in manifest["not_stored"]
        assert archive.read("spec/spin.tla").decode() == run.spec_text
        windows = [
            json.loads(line)
            for line in archive.read("phases/conformance-windows.jsonl").decode().splitlines()
        ]
        assert len(windows) == run.phase_results.get(phase="conformance").window_results.count()
        invariants = json.loads(archive.read("phases/invariant-invariants.json"))
        violated = [i for i in invariants if i["verdict"] == "violated"]
        # dropped_guard breaks MutualExclusion: its counterexample is in the bundle.
        assert "MutualExclusion" in {i["name"] for i in violated}
        assert all(i["counterexample"] for i in violated)
        phase = json.loads(archive.read("phases/runtime.json"))
        assert phase["details"] == run.phase_results.get(phase="runtime").details

    def _private_bundle_is_404_for_others(self, private, alice, bob):
        assert self.client.get(f"/runs/{private.pk}/bundle.zip").status_code == 404
        self.client.force_login(bob)
        assert self.client.get(f"/runs/{private.pk}/bundle.zip").status_code == 404
        self.client.force_login(alice)
        assert self.client.get(f"/runs/{private.pk}/bundle.zip").status_code == 200
        self.client.logout()

    def _dataset_lists_public_runs_only(self, release, public, private):
        response = self.client.get(f"/releases/{release.name}/dataset.jsonl")
        assert response.status_code == 200
        body = b"".join(response.streaming_content).decode()
        rows = [json.loads(line) for line in body.splitlines()]
        assert [r["id"] for r in rows] == [public.pk]
        assert rows[0]["release"] == "2026.12"
        assert rows[0]["overall_unrounded"] == public.overall
        assert {p["phase"] for p in rows[0]["phases"]} == {
            "syntax",
            "runtime",
            "conformance",
            "invariant",
        }
