"""At most LINT_CONCURRENCY upload checks at once, across every web process of one host.

A pool of lock files: a check holds an exclusive `flock` on one free slot file while its child
process runs. The kernel drops the lock when the holder exits, however it exits, so a crashed
worker never leaks a slot (a counter in a cache would need a timeout to recover one).
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from leaderboard.shared.ratelimit import Limited

POLL_SECONDS = 0.05


def busy(retry_after: int) -> Limited:
    """The answer when every slot stays taken: a 429 that says when to retry."""
    return Limited(
        f"The server is busy checking other uploads ({settings.LINT_CONCURRENCY} at once); "
        "nothing was saved.",
        retry_after,
    )


@contextmanager
def lint_slot() -> Iterator[None]:
    """Hold one slot for the block; wait up to LINT_SLOT_WAIT_SECONDS, else raise Limited."""
    directory = Path(settings.LINT_SLOT_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + settings.LINT_SLOT_WAIT_SECONDS
    while True:
        fd = _take_free_slot(directory, settings.LINT_CONCURRENCY)
        if fd is not None:
            break
        if time.monotonic() >= deadline:
            # A slot frees at the latest when a check's own timeout ends.
            raise busy(max(1, round(settings.LINT_TIMEOUT_SECONDS)))
        time.sleep(POLL_SECONDS)
    try:
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def _take_free_slot(directory: Path, count: int) -> int | None:
    for number in range(count):
        fd = os.open(directory / f"slot-{number}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return fd
    return None
