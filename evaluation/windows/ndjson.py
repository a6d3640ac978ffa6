"""Reading newline-delimited JSON traces, the one input format every window cutter shares."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluation.windows import stored
from evaluation.windows.errors import WindowFormatError


def read_objects(path: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """Each non-blank line as `(line number, "<path>:<line>", object)`, read lazily.

    A line that is not a JSON object raises WindowFormatError naming that place.
    """
    with stored.open_text(path) as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            where = f"{path}:{number}"
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise WindowFormatError(f"{where}: not JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise WindowFormatError(f"{where}: expected a JSON object")
            yield number, where, obj
