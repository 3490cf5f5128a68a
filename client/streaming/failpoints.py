"""Named points of a batch where the crash tests kill the client (``GRYPH_STREAM_CRASH_AT``), to
prove that a stream resumes correctly from each: after the intent, after reading and computing,
after committing, and after each output it is published to (outbox.py). Unset, a point costs one
dictionary lookup."""

from __future__ import annotations

import os
import signal

POINTS = ("intent", "computed", "committed", "history", "printed", "report", "junit", "markdown", "alerts", "lineage")


def reached(point: str) -> None:
    """Die at once, as a killed process would (no cleanup, no flush), when this is the chosen point."""
    assert point in POINTS, point
    if os.environ.get("GRYPH_STREAM_CRASH_AT") == point:
        os.kill(os.getpid(), signal.SIGKILL)
