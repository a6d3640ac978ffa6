"""CSV cells a spreadsheet will not run: a text cell starting with = + - @ TAB or CR is a formula
to Excel, LibreOffice and Google Sheets (OWASP "CSV injection"). Such a cell gets a leading
apostrophe, which the spreadsheet shows as text. Numbers are left alone: -0.5 is a number."""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_row(row) -> list:
    return [safe_cell(value) for value in row]
