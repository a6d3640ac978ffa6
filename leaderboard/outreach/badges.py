"""An embeddable SVG badge: one model's figure on one task (or overall), shields.io's layout.

Every text in the SVG goes through `format_html` (escaped for XML as for HTML), so a model's
name cannot open an element or an attribute; the badge carries no script, link or external
reference, and its response forbids everything else by its own Content-Security-Policy.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.html import format_html

from leaderboard.board.aggregate import Board
from leaderboard.shared.rounding import CELL, MEAN, percent, percent_text

OVERALL = "overall"
# Colours by the figure (×100), best first; a cell with no figure is grey.
COLOURS = ((80.0, "#2e7d32"), (50.0, "#9a7d0a"), (0.0, "#c0582b"))
GREY = "#6b6b6b"
# Verdana 11 px averages about 6.5 px a character; each half has 6 px of padding a side.
CHAR_WIDTH, PADDING = 6.5, 12


@dataclass(frozen=True)
class Badge:
    label: str
    message: str
    colour: str
    title: str


def badge_for(board: Board, model: dict[str, object], task: dict[str, object] | None,
              awaiting: bool) -> Badge:  # fmt: skip
    """The badge of `model` (a board row or a model's name) on `task` (None: overall)."""
    name = str(model["name"])
    if task is None:
        row = board.rows[board.rows.model_id == model["id"]]
        if row.empty:
            return Badge("SysMoBench", "not ranked", GREY, f"{name}: not ranked on SysMoBench")
        overall = float(row.overall.iloc[0])
        rank = int(row["rank"].iloc[0])
        text = percent_text(overall, MEAN)
        title = f"{name} on SysMoBench: rank {rank}, overall {text}"
        return Badge("SysMoBench", f"#{rank} · {text}", _colour(percent(overall, MEAN)), title)
    label = f"SysMoBench {task['slug']}"
    cell = board.cell(int(str(model["id"])), int(str(task["id"])))
    if cell is None:
        message = "awaiting review" if awaiting else "not submitted"
        return Badge(label, message, GREY, f"{name} on {task['slug']}: {message}")
    text = percent_text(cell["overall"], CELL)
    message = f"{text} ({cell['provenance']})"
    return Badge(label, message, _colour(percent(cell["overall"], CELL)),
                 f"{name} on {task['slug']}: {text} ({cell['provenance']})")  # fmt: skip


def _colour(value: float | None) -> str:
    if value is None:
        return GREY
    return next((colour for floor, colour in COLOURS if value >= floor), GREY)


def _width(text: str) -> int:
    return round(len(text) * CHAR_WIDTH + PADDING)


def svg(badge: Badge) -> str:
    left, right = _width(badge.label), _width(badge.message)
    total = left + right
    return format_html(
        '<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" '
        'aria-label="{label}: {message}"><title>{title}</title>'
        '<rect width="{left}" height="20" fill="#555"/>'
        '<rect x="{left}" width="{right}" height="20" fill="{colour}"/>'
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" '
        'font-size="11"><text x="{lx}" y="14">{label}</text>'
        '<text x="{rx}" y="14">{message}</text></g></svg>',
        total=total, label=badge.label, message=badge.message, title=badge.title, left=left,
        right=right, colour=badge.colour, lx=left / 2, rx=left + right / 2,
    )  # fmt: skip
