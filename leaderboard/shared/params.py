"""Reading ids from query strings without trusting `str.isdigit`.

`'²'.isdigit()` is true and `int('²')` fails; a 30-digit id overflows the database's integer.
"""

from __future__ import annotations

import re

_ID = re.compile(r"[0-9]{1,18}")


def parse_id(text: str | None) -> int | None:
    """The positive integer `text` spells in ASCII digits (at most 18, within a 64-bit id)."""
    if text and _ID.fullmatch(text):
        return int(text)
    return None
