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
