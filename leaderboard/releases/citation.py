"""The "cite this release" BibTeX entry on a release page."""

from __future__ import annotations

from leaderboard.models import Release


def bibtex(release: Release, url: str) -> str:
    key = "sysmobench" + "".join(ch for ch in release.name if ch.isalnum())
    when = release.approved_at or release.created_at
    fields = {
        "title": f"{{SysMoBench Leaderboard}}, release {release.name}",
        "author": "{SysMoBench Leaderboard maintainers}",
        "year": str(when.year),
        "month": when.strftime("%b").lower(),
        "version": release.name,
        "howpublished": f"\\url{{{url}}}",
        "note": f"Release identity sha256:{release.identity}; scorer "
        f"{release.components.get('scorer_version', '?')}",
    }
    body = ",\n".join(
        f"  {name} = {value}" if name == "month" else f"  {name} = {{{value}}}"
        for name, value in fields.items()
    )
    return f"@misc{{{key},\n{body}\n}}"
