"""Named read-side queries. The weighted aggregate lives in leaderboard/aggregate.py."""

from django.db import models


class RunQuerySet(models.QuerySet):
    def verified(self):
        return self.filter(provenance="verified")

    def reported(self):
        return self.filter(provenance="reported")

    def finished(self):
        return self.filter(status="finished")

    def queued(self):
        return self.filter(status="queued")

    def running(self):
        return self.filter(status="running")

    def for_task(self, task):
        return self.filter(task=task)

    def stale(self, older_than):
        """RUNNING runs whose worker has not finished since `older_than` (a datetime)."""
        return self.running().filter(started_at__lt=older_than)

    def counting(self):
        """Runs that may count on the board: finished, verified here or reported with a source."""
        return self.finished().filter(provenance__in=["verified", "reported"])

    def board_rows(self) -> list[dict]:
        """One dict per counting run: ids, provenance and creation time (feeds pandas)."""
        return list(self.counting().values("id", "model_id", "task_id", "provenance", "created_at"))

    def board_phase_rows(self) -> list[dict]:
        """One dict per phase result of a counting run: run id, phase, status and score."""
        # Reached through the relation: models.py imports this module, not the other way round.
        phase_result = self.model.phase_results.rel.related_model
        return list(
            phase_result.objects.filter(run__in=self.counting()).values(
                "run_id", "phase", "status", "score"
            )
        )

    def board_stamp(self) -> tuple:
        """Changes whenever a run finishes or is added/removed: part of the board's cache key."""
        stamp = self.counting().aggregate(
            n=models.Count("id"), last_id=models.Max("id"), last=models.Max("finished_at")
        )
        return (stamp["n"], stamp["last_id"], stamp["last"].isoformat() if stamp["last"] else "")

    def for_board_page(self):
        """Runs listed on task and model pages, newest first, with what their rows show."""
        return self.select_related("model", "task").order_by("-created_at", "-id")
