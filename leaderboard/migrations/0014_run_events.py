"""Structured run history (docs/decisions/0024-typed-credit-and-run-history.md): RunEvent, a run's
history as rows (attempt, event, reason). `fill_events` turns the lines of each old text log into
rows; the log itself stays as it was, for maintainers to read."""

import re
from datetime import UTC, datetime

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

# The line shapes `leaderboard/scoring/jobs.py` and `reaper.py` wrote up to this migration.
LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (.*)$")
ATTEMPT = re.compile(r"\battempt (\d+)\b")
PHASE = re.compile(r"^(syntax|runtime|conformance|invariant): ")
OLD_EVENTS = (
    (lambda text: text.endswith("re-queued"), "requeued"),
    (lambda text: re.match(r"attempt \d+ started on ", text), "started"),
    (lambda text: re.match(r"attempt \d+ stopped: |stopped attempt \d+ ", text), "stopped"),
    (lambda text: text.startswith("failed: "), "failed"),
    (lambda text: text.startswith("finished: "), "finished"),
    (lambda text: text.startswith("near-duplicate of "), "near_duplicate"),
    (lambda text: PHASE.match(text), "phase"),
)


def old_log_events(log: str, attempts: int) -> list[tuple[int, str, str, datetime]]:
    """(attempt, event, reason, at) per line of an old log; a line names its attempt or belongs
    to the last one started before it."""
    out = []
    current = None
    for line in log.splitlines():
        match = LINE.match(line)
        if not match:
            continue
        stamp, text = match.groups()
        event = next((name for test, name in OLD_EVENTS if test(text)), "note")
        named = ATTEMPT.search(text)
        attempt = int(named.group(1)) if named else current or attempts
        if event == "started":
            current = attempt
        at = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
        out.append((attempt, event, text, at))
    return out


def fill_events(apps, schema_editor):
    Run = apps.get_model("leaderboard", "Run")
    RunEvent = apps.get_model("leaderboard", "RunEvent")
    for run in Run.objects.exclude(log="").only("pk", "log", "attempts").iterator():
        RunEvent.objects.bulk_create(
            RunEvent(run_id=run.pk, attempt=attempt, event=event, reason=reason, at=at)
            for attempt, event, reason, at in old_log_events(run.log, run.attempts)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0013_typed_credit"),
    ]

    operations = [
        migrations.CreateModel(
            name="RunEvent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("attempt", models.PositiveSmallIntegerField()),
                (
                    "event",
                    models.CharField(
                        choices=[
                            ("started", "Attempt started"),
                            ("near_duplicate", "Flagged as a near-duplicate"),
                            ("phase", "Phase finished"),
                            ("finished", "Finished"),
                            ("failed", "Failed"),
                            ("stopped", "Attempt stopped"),
                            ("requeued", "Re-queued"),
                            ("note", "Note"),
                        ],
                        max_length=16,
                    ),
                ),
                ("reason", models.TextField(blank=True)),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="events",
                        to="leaderboard.run",
                    ),
                ),
            ],
            options={
                "ordering": ["run", "at", "id"],
                "indexes": [
                    models.Index(fields=["run", "event"], name="leaderboard_run_id_evt_idx")
                ],
            },
        ),
        migrations.RunPython(fill_events, migrations.RunPython.noop),
    ]
