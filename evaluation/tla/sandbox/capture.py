"""What is kept of a tool's output: its head and its tail, without the coverage blocks."""

from __future__ import annotations

from collections import deque
from typing import IO

from evaluation.tla.codes import EC

OUTPUT_HEAD_BYTES = 100_000
OUTPUT_TAIL_BYTES = 100_000
# Per-expression coverage is voluminous and unused; dropping it keeps the action lines in view.
DROPPED_CODES = frozenset({EC.TLC_COVERAGE_VALUE, EC.TLC_COVERAGE_VALUE_COST})


class Capture:
    """Keeps the head and the tail of a stream, dropping voluminous coverage blocks."""

    def __init__(self, head_limit: int = OUTPUT_HEAD_BYTES) -> None:
        self.head_limit = head_limit
        self.head: list[bytes] = []
        self.head_bytes = 0
        self.tail: deque[bytes] = deque()
        self.tail_bytes = 0
        self.truncated = False
        self._dropping: bytes | None = None

    def feed(self, line: bytes) -> None:
        if self._dropping is not None:
            if line.startswith(self._dropping):
                self._dropping = None
            return
        if line.startswith(b"@!@!@STARTMSG "):
            code = line[14:].split(b":", 1)[0]
            if code.isascii() and code.isdigit() and int(code) in DROPPED_CODES:
                self._dropping = b"@!@!@ENDMSG " + code
                return
        if self.head_bytes + len(line) <= self.head_limit and not self.tail:
            self.head.append(line)
            self.head_bytes += len(line)
            return
        self.tail.append(line)
        self.tail_bytes += len(line)
        while self.tail_bytes > OUTPUT_TAIL_BYTES and len(self.tail) > 1:
            self.tail_bytes -= len(self.tail.popleft())
            self.truncated = True

    def text(self) -> str:
        marker = [b"\n[... output truncated ...]\n"] if self.truncated else []
        return b"".join(self.head + marker + list(self.tail)).decode("utf-8", "replace")


def pump(stream: IO[bytes], capture: Capture) -> None:
    for line in iter(lambda: stream.readline(65536), b""):
        capture.feed(line)
    stream.close()
