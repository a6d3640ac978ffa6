"""Issue 25: a contract change makes a new release; rescoring the approved runs under it stores
new scorings beside the old ones, the diff says what moved, and the default board moves only
when a maintainer approves the release. Scored for real (spin reference and a mutant)."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import TestCase, override_settings

from leaderboard.board.boards import get_board
from leaderboard.models import Release, Rescore, Run
from leaderboard.releases.identity import ReleaseError, make_release
from leaderboard.releases.rescoring import diff, rescore
from tests.base import make_model, make_run
from tests.release_support import drop_invariant, import_spin, scored, spec, spin_contracts


@pytest.mark.tla
class RescoringAfterAContractChange(TestCase):
    @pytest.fixture(autouse=True)
    def _contracts(self, tmp_path):
        self.tasks_dir = spin_contracts(tmp_path)

    def test_the_diff_is_shown_and_the_board_moves_only_after_approval(self):
        with override_settings(TASKS_DATA_DIR=self.tasks_dir):
            self._world_under_the_first_release()
            self._contract_change_makes_a_second_release()
            self._rescoring_is_queued_once()
            self._diff_and_approval()

    def _world_under_the_first_release(self):
        self.task = import_spin(self.tasks_dir)
        self.first = make_release("2026.11", "first release")
        call_command("approve_release", "2026.11", stdout=StringIO())
        self.model_ref, self.model_mut = make_model("ref-model"), make_model("mutant-model")
        self.ref = scored(make_run(self.model_ref, self.task, spec_text=spec("spin")))
        self.mut = scored(make_run(self.model_mut, self.task, spec_text=spec("dropped_guard")))
        assert (self.ref.release, self.mut.release) == (self.first, self.first)
        self.old_cells = self._cells()
        assert self.old_cells[self.model_mut.pk] < self.old_cells[self.model_ref.pk]

    def _contract_change_makes_a_second_release(self):
        with pytest.raises(ReleaseError, match="already has this identity"):
            make_release("2026.11b", "nothing changed")
        drop_invariant(self.tasks_dir, "MutualExclusion")
        out = StringIO()
        call_command(
            "make_release", "2026.12", "--changelog", "MutualExclusion leaves spin", stdout=out
        )
        assert "release 2026.12: identity" in out.getvalue()
        with pytest.raises(CommandError, match="already has this identity"):
            call_command("make_release", "2026.13", "--changelog", "again", stdout=StringIO())
        self.second = Release.objects.get(name="2026.12")
        assert self.second.identity != self.first.identity
        assert not self.second.approved

    def _rescoring_is_queued_once(self):
        out = StringIO()
        call_command("rescore", "--dry-run", stdout=out)
        assert "would rescore run" in out.getvalue()
        assert not Rescore.objects.exists() and Run.objects.count() == 2
        with self.captureOnCommitCallbacks(execute=False) as queued:
            result = rescore(self.second)
        assert result.queued == 2 and len(queued) == 2
        # Safe to run twice: pending rescorings are not queued again.
        with self.captureOnCommitCallbacks(execute=False) as again:
            assert rescore(self.second).queued == 0
        assert again == []
        for record in Rescore.objects.filter(release=self.second):
            assert record.new_run is not None and record.new_run.rescore_of_id == record.run_id
            scored(record.new_run)

    def _diff_and_approval(self):
        rows = {row["run"]: row for row in diff(self.second)}
        assert {r["state"] for r in rows.values()} == {"done"}
        moved = rows[self.mut.pk]["moved"]
        assert any(line.startswith("invariant ") for line in moved), moved
        assert rows[self.mut.pk]["overall"]["new"] > rows[self.mut.pk]["overall"]["old"]
        # The old results are untouched, and the old release's board has not moved.
        self.mut.refresh_from_db()
        assert self.mut.release == self.first and self.mut.phase_results.count() == 4
        assert self._cells() == self.old_cells
        page = self.client.get(f"/releases/{self.second.name}/diff.json").json()
        assert {r["run"] for r in page["runs"]} == {self.ref.pk, self.mut.pk}
        html = self.client.get(f"/releases/{self.second.name}/diff/").content.decode()
        assert moved[0] in html
        # Approval moves the board to the new scorings.
        call_command("approve_release", "2026.12", stdout=StringIO())
        assert Release.board_default() == self.second
        new_cells = self._cells()
        assert new_cells[self.model_mut.pk] == pytest.approx(rows[self.mut.pk]["overall"]["new"])
        assert new_cells[self.model_mut.pk] > self.old_cells[self.model_mut.pk]
        # The old release's board is still there by name, and its runs say where they belong.
        old_board = get_board(release=self.first)
        assert old_board.cell(self.model_mut.pk, self.task.pk)["run_id"] == self.mut.pk
        page = self.client.get(f"/runs/{self.mut.pk}/").content.decode()
        assert "Scored under 2026.11" in page
        with pytest.raises(CommandError, match="approved already"):
            call_command("approve_release", "2026.12", stdout=StringIO())

    def _cells(self):
        board = get_board()
        return {
            m.pk: board.cell(m.pk, self.task.pk)["overall"]
            for m in (self.model_ref, self.model_mut)
        }
