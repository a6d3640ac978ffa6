"""Filters for run and compare pages: scores are stored 0..1 and shown ×100."""

from django import template

register = template.Library()


@register.filter
def pct(value, digits=1):
    """0.8125 -> "81.3"; None (no score) -> an em dash."""
    if value in (None, "") or value != value:
        return "—"
    return f"{100 * float(value):.{int(digits)}f}"


@register.filter
def signed_pct(value):
    """A delta ×100 with its sign: +12.5, -3.0, 0.0; None -> an em dash."""
    if value in (None, "") or value != value:
        return "—"
    return f"{100 * float(value):+.1f}"


@register.filter
def seconds(value):
    if value in (None, ""):
        return "—"
    return f"{float(value):.1f} s" if value < 600 else f"{float(value) / 60:.1f} min"
