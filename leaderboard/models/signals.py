"""What the data layer announces to the layers above it, which subscribe when the app starts
(`leaderboard/apps.py`): the data never imports the board, the releases or the scoring.

`run_finished` is sent inside the change, with `send`: the board's mark is part of the change,
so a listener that fails fails the writer, as a direct call did. The two board signals are sent
once the change has committed, through `announce`: a listener that fails there is logged, and
the next reader does its work (a board request refreshes from the marks, or builds the scope).
"""

import logging
from typing import Any

from django.dispatch import Signal

log = logging.getLogger(__name__)

# A run went RUNNING -> FINISHED (Run.finish won). Sent with `run`. The board marks its cell;
# the releases store the run's release and settle its rescoring record.
run_finished = Signal()

# Board marks were written and have committed: the stored board has changes to take in.
board_marked = Signal()

# A board scope a request will soon ask for (a release just became the default), committed.
# Sent with `scope`.
board_scope_wanted = Signal()


def announce(signal: Signal, **about: Any) -> None:
    """Send `signal` to every listener; one that raises is logged, never the sender's failure."""
    for listener, outcome in signal.send_robust(sender=None, **about):
        if isinstance(outcome, Exception):
            log.error("a listener of a data signal failed: %r", listener, exc_info=outcome)
