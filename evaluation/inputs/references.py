"""The public specs of a task a submission may not copy: its reference and the reference's
mutants (`tasks_data/<task>/reference/**/*.tla`), which the repository publishes. The specs of
`tests/` are not public (they are not served), so they are not among them."""

from __future__ import annotations

from pathlib import Path


def public_specs(task_dir: Path | str) -> dict[str, str]:
    """`<task>/reference/...tla` (the name a near-duplicate flag shows) -> the spec's text."""
    base = Path(task_dir)
    return {
        f"{base.name}/{path.relative_to(base).as_posix()}": path.read_text(encoding="utf-8")
        for path in sorted((base / "reference").rglob("*.tla"))
        if path.is_file()
    }
