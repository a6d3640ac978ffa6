"""A small per-process memo for values whose key already names their version (the board's key
holds its stored scope's version, leaderboard/board/store.py).

Computed boards are kept here and nowhere else: a process keeps the few it served last, and
computes a board once per version (docs/decisions/0026-stored-board-and-paging.md). A stale copy
cannot be served: once the scope's version moves, the key is new.
"""

from collections import OrderedDict
from collections.abc import Hashable
from threading import Lock
from typing import Any


class LocalMemo:
    def __init__(self, size: int = 8):
        self.size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = Lock()

    def get(self, key: Hashable) -> Any:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def set(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
