"""Pages of the board's rows and of a task's run list
(docs/decisions/0026-stored-board-and-paging.md).

The board is computed, ranked and given its rank ranges over every model first; only what is
rendered or exported is a page of it, so a page's figures equal the full board's. `?page=all`
asks an export for every row, which is then streamed.
"""

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.http import QueryDict
from django.utils.http import urlencode

# Large enough that a small world is one page; a world of 1,000 models is 20.
MODELS_PER_PAGE = 50
RUNS_PER_PAGE = 50
ALL = "all"


@dataclass(frozen=True)
class Window:
    """One page: its items, and where it sits among all of them (1-based, inclusive)."""

    items: list[Any]
    number: int
    pages: int
    first: int
    last: int
    total: int
    previous_url: str | None
    next_url: str | None
    noun: str = "items"

    @property
    def paged(self) -> bool:
        return self.pages > 1

    @property
    def text(self) -> str:
        """E.g. "models 1–50 of 1,000"."""
        if not self.total:
            return f"no {self.noun}"
        return f"{self.noun} {self.first:,}–{self.last:,} of {self.total:,}"


def window(
    items: Any, number: int | None, query: QueryDict, per_page: int, noun: str = "models"
) -> Window:
    """Page `number` of `items` (a list or a QuerySet); None is every item on one page. A
    number past the last page shows the last page."""
    if number is None:
        everything = list(items)
        count = len(everything)
        return Window(everything, 1, 1, min(1, count), count, count, None, None, noun)
    page: Page = Paginator(items, per_page).get_page(number)
    total = page.paginator.count
    return Window(
        items=list(page.object_list),
        number=page.number,
        pages=page.paginator.num_pages,
        first=page.start_index(),
        last=page.end_index(),
        total=total,
        previous_url=_page_url(query, page.number - 1) if page.has_previous() else None,
        next_url=_page_url(query, page.number + 1) if page.has_next() else None,
        noun=noun,
    )


def _page_url(query: QueryDict, number: int) -> str:
    kept: dict[str, str] = {k: str(v) for k, v in query.items() if k != "page" and v}
    kept["page"] = str(number)
    return "?" + urlencode(kept)


def parse_page(text: str | None, allow_all: bool) -> int | None:
    """The `page` parameter: a positive integer, or (where `allow_all`) "all", meaning None.
    Raises ValueError with a sentence for anything else."""
    text = (text or "").strip()
    if not text:
        return 1
    if allow_all and text.lower() == ALL:
        return None
    if not (text.isascii() and text.isdigit()) or int(text) < 1 or len(text) > 9:
        choices = 'a page number (1, 2, …) or "all"' if allow_all else "a page number (1, 2, …)"
        raise ValueError(f"Unknown page “{text[:40]}”: give {choices}.")
    return int(text)
