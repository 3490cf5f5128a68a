"""Named points of a batch where the crash tests kill the client (``GRYPH_STREAM_CRASH_AT``), to
prove that a stream resumes correctly from each: after the intent, after reading and computing,
after committing, and after each output it is published to (outbox.py). Unset, a point costs one
dictionary lookup."""

from __future__ import annotations

from gryph.compiler.support.crash_points import crash_if_chosen

POINTS = ("intent", "computed", "committed", "history", "printed", "report", "junit", "markdown", "alerts", "lineage")


def reached(point: str) -> None:
    """Die at once, as a killed process would (no cleanup, no flush), when this is the chosen point."""
    assert point in POINTS, point
    crash_if_chosen("GRYPH_STREAM_CRASH_AT", point)
