"""Plotly figures for the board pages, returned as plain dicts for `json_script`.

plotly.js itself is served from our static files (the plotly wheel's package_data), never a CDN.
"""

import hashlib
import json
from collections.abc import Callable
from typing import Any, TypeVar

import plotly.graph_objects as go
from django.core.cache import cache
from plotly.colors import qualitative

from leaderboard.board.aggregate import FUNNEL_STAGES, PHASE_LABELS, PHASES
from leaderboard.shared.rounding import MEAN, percent

# Four hues of the Okabe-Ito palette, told apart with any common colour vision deficiency (four
# shades of one blue were not).
PHASE_COLOURS = {
    "syntax": "#E69F00",
    "runtime": "#56B4E9",
    "conformance": "#009E73",
    "invariant": "#CC79A7",
}
# The axis names its end: 100 is the top score.
SCORE_TICKS = [0, 20, 40, 60, 80, 100]
LAYOUT = {
    "margin": {"l": 50, "r": 10, "t": 10, "b": 130},
    "height": 420,
    "paper_bgcolor": "#ffffff",
    "plot_bgcolor": "#ffffff",
    # Below the plot: above it, the legend covered the 100-point bars.
    "legend": {"orientation": "h", "y": -0.45, "x": 0},
    "font": {"family": "system-ui, sans-serif", "size": 12},
}

Inputs = TypeVar("Inputs")


def _memoised(kind: str, inputs: Inputs, build: Callable[[Inputs], go.Figure]) -> dict[str, Any]:
    """Building a plotly figure costs tens of milliseconds; the same inputs give the same JSON."""
    key = f"chart:{kind}:" + hashlib.sha256(json.dumps(inputs).encode()).hexdigest()
    figure: dict[str, Any] | None = cache.get(key)
    if figure is None:
        figure = json.loads(build(inputs).to_json())
        cache.set(key, figure, 3600)
    return figure


def phase_chart(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Grouped bars: the four phase means (×100) of every model shown, in table order."""
    inputs = {
        "names": [r["name"] for r in rows],
        "values": {
            p["phase"]: [
                percent(q["value"], MEAN)
                for r in rows
                for q in r["phases"]
                if q["phase"] == p["phase"]
            ]
            for p in (rows[0]["phases"] if rows else [])
        },
    }
    return _memoised("phases", inputs, _phase_figure)


def short_name(name: str, limit: int = 26) -> str:
    """A model's name short enough for an axis ("Claude, model version unrecorded, SysMoBench
    2025 archive" -> "Claude · SysMoBench 2025 archive"); hovering shows the full name."""
    if len(name) <= limit:
        return name
    parts = name.split(", ")
    if len(parts) > 1:
        name = f"{parts[0]} · {parts[-1]}"
    return name if len(name) <= limit + 8 else name[: limit - 1] + "…"


def _phase_figure(inputs: dict[str, Any]) -> go.Figure:
    # Horizontal bars, one band per model in table order: readable for 10 models or 100.
    names = inputs["names"]
    labels = [short_name(n) for n in names]
    figure = go.Figure(
        [
            go.Bar(
                name=f"{PHASE_LABELS[phase]} {phase}",
                y=labels,
                x=inputs["values"].get(phase, []),
                orientation="h",
                marker_color=PHASE_COLOURS[phase],
                customdata=names,
                hovertemplate="%{customdata}: %{x}<extra>" + PHASE_LABELS[phase] + "</extra>",
            )
            for phase in PHASES
        ]
    )
    figure.update_layout(
        **{
            **LAYOUT,
            "barmode": "group",
            "height": 90 + 30 * max(len(names), 4),
            "margin": {"l": 10, "r": 10, "t": 40, "b": 40},
            "legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0},
            "xaxis": {
                "range": [0, 100],
                "title": "score (0–100)",
                "tickmode": "array",
                "tickvals": SCORE_TICKS,
            },
            "yaxis": {"autorange": "reversed", "automargin": True},
            "bargap": 0.25,
        }
    )
    return figure


def funnel_chart(funnel_rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One funnel trace per model: tasks surviving each gated stage."""
    inputs = [[row["name"], [int(row[s]) for s in FUNNEL_STAGES]] for row in funnel_rows]
    return _memoised("funnel", inputs, _funnel_figure)


def _funnel_figure(inputs: list[list[Any]]) -> go.Figure:
    # One colour per model for up to 48 models (plotly's default cycle has 10, so Gemini and
    # MiniMax shared a blue); counts are written inside each segment.
    palette = [*qualitative.Dark24, *qualitative.Light24]
    figure = go.Figure(
        [
            go.Funnel(
                name=short_name(name),
                y=list(FUNNEL_STAGES),
                x=counts,
                marker={"color": palette[i % len(palette)]},
                textinfo="value",
                textposition="inside",
                insidetextfont={"size": 10},
                hovertemplate=f"{name}<br>%{{y}}: %{{x}} tasks<extra></extra>",
            )
            for i, (name, counts) in enumerate(inputs)
        ]
    )
    figure.update_layout(
        **{
            **LAYOUT,
            "height": 420 + 14 * max(0, len(inputs) - 10),
            "margin": {"l": 80, "r": 10, "t": 10, "b": 30},
            "legend": {"orientation": "v", "x": 1.02, "y": 1, "font": {"size": 11}},
            "funnelgap": 0.15,
            # A count that does not fit its segment is left to the hover and the table below.
            "uniformtext": {"minsize": 9, "mode": "hide"},
        }
    )
    return figure
