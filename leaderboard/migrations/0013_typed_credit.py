"""Typed credit (docs/decisions/0024-typed-credit-and-run-history.md): WindowResult.credit and
InvariantResult.credit, what each result earns. Rows stored before the column carried that only in
the reason's first words; `fill_credit` reads those words once, with the prefixes the scorer wrote
up to 3.1.0 (copied here: a migration must not follow later wording), and nothing reads them
again."""

from django.db import migrations, models

CREDITS = [
    ("credited", "Credited"),
    ("failed", "Failed"),
    ("undecided", "Undecided"),
    ("vacuous", "Vacuous"),
    ("unspecific", "Not credited"),
    ("not_modelled", "Not modelled by the spec"),
    ("absent", "Not checked"),
    ("error", "Error"),
]

# The reason prefixes of an `error` invariant that the scorer wrote up to 3.1.0, and the credit
# each meant (evaluation/phases/invariants/phase.py, phases/invariants/credit.py, invariants/verdicts.py).
OLD_PREFIXES = (
    ("not modelled by the spec", "not_modelled"),
    ("not checked:", "absent"),
    ("vacuous", "vacuous"),
    ("not credited", "unspecific"),
    # TLC explored nothing beyond Init, or fewer states than the contract asks for.
    ("not a pass: TLC explored", "vacuous"),
)
VERDICT_CREDIT = {
    "pass": "credited",
    "holds": "credited",
    "fail": "failed",
    "violated": "failed",
    "undecided": "undecided",
}


def fill_credit(apps, schema_editor):
    """Windows: their verdict's credit (no window reason ever carried one). Invariants: by the
    old reason prefixes, grouped so each distinct (verdict, reason) is one UPDATE at most."""
    WindowResult = apps.get_model("leaderboard", "WindowResult")
    InvariantResult = apps.get_model("leaderboard", "InvariantResult")
    for verdict in WindowResult.objects.values_list("verdict", flat=True).distinct():
        WindowResult.objects.filter(verdict=verdict).update(
            credit=VERDICT_CREDIT.get(verdict, "error")
        )
    for verdict in InvariantResult.objects.values_list("verdict", flat=True).distinct():
        InvariantResult.objects.filter(verdict=verdict).update(
            credit=VERDICT_CREDIT.get(verdict, "error")
        )
    for prefix, credit in OLD_PREFIXES:
        InvariantResult.objects.filter(verdict="error", reason__startswith=prefix).update(
            credit=credit
        )


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0012_release_retirement"),
    ]

    operations = [
        migrations.AddField(
            model_name="windowresult",
            name="credit",
            field=models.CharField(choices=CREDITS, default="error", max_length=12),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="invariantresult",
            name="credit",
            field=models.CharField(choices=CREDITS, default="error", max_length=12),
            preserve_default=False,
        ),
        migrations.RunPython(fill_credit, migrations.RunPython.noop),
    ]
