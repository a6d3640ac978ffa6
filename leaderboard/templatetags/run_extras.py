"""Filters for run and compare pages: scores are stored 0..1 and shown ×100."""

from django import template

from leaderboard.aggregate import published_round

register = template.Library()


@register.filter
def pct(value, digits=1):
    """0.8125 -> "81.3"; None (no score) -> an em dash. One decimal rounds as the board does
    (published_round), so a run page and the leaderboard never show different figures."""
    if value in (None, "") or value != value:
        return "—"
    if int(digits) == 1:
        value = published_round(value)
    return f"{100 * float(value):.{int(digits)}f}"


@register.filter
def signed_pct(value):
    """A delta ×100 with its sign: +12.5, -3.0, 0.0; None -> an em dash."""
    if value in (None, "") or value != value:
        return "—"
    shown = round(100 * float(value), 1)
    # A zero delta is shown unsigned: "-0.0" in red reads as a loss that is not there.
    return f"{shown:+.1f}" if shown else "0.0"


@register.filter
def seconds(value):
    if value in (None, ""):
        return "—"
    return f"{float(value):.1f} s" if value < 600 else f"{float(value) / 60:.1f} min"
