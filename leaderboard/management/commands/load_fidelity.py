"""Score the model-written specs of the fidelity corpus as verified entries.

    manage.py load_fidelity [--adapters DIR] [--queue] [--only dqueue|locksvc|raftkvs]

The corpus (corpus/fidelity/spec/, shipped with the project) holds TLA+ specs that Claude,
GPT-5, DeepSeek and Gemini wrote for the original SysMoBench in 2025. Each becomes a verified
run of a model labelled with exactly what is known, e.g. "Claude, model version unrecorded,
SysMoBench 2025 archive". The specs use their own names, so each is scored with its own TLC cfg
(beside it) and through the adapter a submitter would write for it:
`<DIR>/<task>/<variant>.adapter.yaml` (variant = the spec's folder below the task, "/" as "_":
dqueue/specula_claude.adapter.yaml; the project keeps them in tests/fidelity/, the default
folder). A spec without its adapter is refused, and nothing is loaded: scored with the identity
adapter, the archive's own names would fail every window and the wrong figure would go onto the
board as an approved run. Loading twice scores nothing twice."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from leaderboard.models import ModelUnderTest, Run, Task
from leaderboard.scoring.jobs import evaluate_run
from leaderboard.scoring.queueing import enqueue_run

TASKS = ("dqueue", "locksvc", "raftkvs")
AUTHORS = {
    "claude": ("Claude", "Anthropic"),
    "gpt5": ("GPT-5", "OpenAI"),
    "deepseek": ("DeepSeek", "DeepSeek"),
    "gemini": ("Gemini", "Google"),
}
LABEL = "{name}, model version unrecorded, SysMoBench 2025 archive"
# What narrow columns show (the full LABEL stays in the page's title attribute).
SHORT_LABEL = "{name} (2025 archive)"
SOURCE = "SysMoBench fidelity corpus (specula-org/SysMoBench 7bae2502), written in 2025"


@dataclass(frozen=True)
class ArchivedSpec:
    task: str
    variant: str  # e.g. "specula/claude" or "claude"
    path: Path

    @property
    def author(self) -> str:
        return self.variant.rsplit("/", 1)[-1]


def archived_specs(root: Path, only: str | None = None) -> list[ArchivedSpec]:
    specs = []
    for task in TASKS:
        if only and task != only:
            continue
        for path in sorted((root / task).glob(f"**/{task}.tla")):
            variant = str(path.parent.relative_to(root / task))
            if variant.rsplit("/", 1)[-1] in AUTHORS:
                specs.append(ArchivedSpec(task, variant, path))
    return specs


def default_adapters() -> Path:
    return Path(settings.BASE_DIR) / "tests" / "fidelity"


def adapter_path(adapters: Path, spec: ArchivedSpec) -> Path:
    return adapters / spec.task / f"{spec.variant.replace('/', '_')}.adapter.yaml"


def archive_model(author: str) -> ModelUnderTest:
    name, organisation = AUTHORS[author]
    model, _ = ModelUnderTest.objects.get_or_create(
        slug=f"{author}-2025-archive",
        defaults={
            "name": LABEL.format(name=name),
            "short_name": SHORT_LABEL.format(name=name),
            "organisation": organisation,
            "version": "unrecorded",
            "link": "https://github.com/specula-org/SysMoBench",
        },
    )
    return model


class Command(BaseCommand):
    help = "Score the fidelity corpus's model-written specs as verified archive entries."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--adapters",
            type=Path,
            default=default_adapters(),
            help="adapter folder (default: the project's tests/fidelity)",
        )
        parser.add_argument("--queue", action="store_true", help="queue instead of scoring here")
        parser.add_argument("--only", choices=TASKS, default=None)

    def handle(
        self, *args: Any, adapters: Path, queue: bool, only: str | None, **options: Any
    ) -> None:
        root = Path(settings.SYSMOBENCH_DATA_DIR) / "fidelity" / "spec"
        specs = archived_specs(root, only)
        if not specs:
            raise CommandError(f"no archived specs under {root}")
        missing = sorted({s.task for s in specs} - set(Task.objects.values_list("slug", flat=True)))
        if missing:
            raise CommandError(f"unknown tasks {missing}: run load_published first")
        without = [
            str(adapter_path(adapters, s)) for s in specs if not adapter_path(adapters, s).is_file()
        ]
        if without:
            raise CommandError(
                "no adapter for " + ", ".join(without) + ": every archived spec is scored "
                "through its adapter (pass --adapters DIR, the folder holding "
                "<task>/<variant>.adapter.yaml)"
            )
        for spec in specs:
            run, created = self._run_for(spec, adapters)
            if not created:
                self.stdout.write(f"{spec.task}/{spec.variant}: already loaded as run {run.pk}")
                continue
            if queue:
                enqueue_run(run)
                self.stdout.write(f"{spec.task}/{spec.variant}: queued run {run.pk}")
                continue
            evaluate_run(run.pk)
            run.refresh_from_db()
            self.stdout.write(f"{spec.task}/{spec.variant}: run {run.pk} {self._summary(run)}")

    def _run_for(self, spec: ArchivedSpec, adapters: Path) -> tuple[Run, bool]:
        model, task = archive_model(spec.author), Task.objects.get(slug=spec.task)
        text = spec.path.read_text(encoding="utf-8")
        adapter = adapter_path(adapters, spec).read_text(encoding="utf-8")
        cfg_path = spec.path.with_suffix(".cfg")
        cfg = cfg_path.read_text(encoding="utf-8") if cfg_path.is_file() else ""
        existing = (
            Run.objects.filter(model=model, task=task, spec_text=text, adapter_text=adapter)
            .exclude(status=Run.Status.FAILED)
            .first()
        )
        if existing is not None:
            return existing, False
        # The operator running this command acts as the maintainer: the archive's runs go onto
        # the board when they finish, with no owner and no review step (as submit_sample's).
        now = timezone.now()
        run = Run.objects.create(
            model=model, task=task, spec_text=text, adapter_text=adapter, cfg_text=cfg,
            source=SOURCE,
            review=Run.Review.APPROVED, published_at=now, reviewed_at=now,
        )  # fmt: skip
        return run, True

    @staticmethod
    def _summary(run: Run) -> str:
        if run.status != Run.Status.FINISHED:
            return f"{run.status}: {run.failure_reason[:200]}"
        phases = ", ".join(
            f"{p.phase} {p.status} {'-' if p.score is None else f'{p.score:.3f}'}"
            for p in run.phase_results.all()
        )
        return f"finished, overall {run.overall:.3f} ({phases})"
