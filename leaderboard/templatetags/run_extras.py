"""Filters for run and compare pages: scores are stored 0..1 and shown ×100."""

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from leaderboard.shared.rounding import MEAN, Score, percent_text

register = template.Library()


@register.filter
def pct(value: Score, digits: int | str = 1) -> str:
    """A per-task figure (a run's overall or phase score) ×100: 0.7374999 -> "73.7"; None -> an
    em dash. One decimal follows leaderboard.shared.rounding, so a run page and the board agree."""
    if value in (None, "") or value != value:
        return "—"
    if int(digits) == 1:
        return percent_text(value)
    return f"{100 * float(value):.{int(digits)}f}"


@register.filter
def pct_mean(value: Score) -> str:
    """A mean over tasks ×100, rounded as the paper's summary table (shared/rounding.py)."""
    if value in (None, "") or value != value:
        return "—"
    return percent_text(value, MEAN)


@register.filter
def signed_pct(value: Score) -> str:
    """A delta ×100 with its sign: +12.5, -3.0, 0.0; None -> an em dash."""
    if value in (None, "") or value != value:
        return "—"
    shown = round(100 * float(value), 1)
    # A zero delta is shown unsigned: "-0.0" in red reads as a loss that is not there.
    return f"{shown:+.1f}" if shown else "0.0"


@register.filter
def seconds(value: float | str | None) -> str:
    if value is None or value == "":
        return "—"
    number = float(value)
    return f"{number:.1f} s" if number < 600 else f"{number / 60:.1f} min"


@register.filter
def code_spans(text: str | None) -> SafeString:
    """The scorer's hints quote names in backticks (`state:`); shown as code, the rest escaped."""
    return mark_safe(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(text or ""))))


@register.filter
def wait_words(seconds: float | None) -> str:
    """A wait estimate in round words; static/js/run_progress.js says it the same way."""
    if seconds is None:
        return ""
    if seconds < 90:
        return "a minute"
    if seconds < 5400:
        return f"{round(seconds / 60)} minutes"
    return f"{seconds / 3600:.1f} hours"
