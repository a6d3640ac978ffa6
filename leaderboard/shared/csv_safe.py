"""CSV cells a spreadsheet will not run: a text cell starting with = + - @ TAB or CR is a formula
to Excel, LibreOffice and Google Sheets (OWASP "CSV injection"). Such a cell gets a leading
apostrophe, which the spreadsheet shows as text. Numbers are left alone: -0.5 is a number."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

Cell = TypeVar("Cell")

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Cell) -> Cell | str:
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_row(row: Iterable[object]) -> list[object]:
    return [safe_cell(value) for value in row]
