"""Named points where the crash tests kill gryph, to prove that what it writes survives a kill at
each (a stream's batch, a quarantine's folders). Unset, a point costs one dictionary lookup."""

from __future__ import annotations

import os
import signal

QUARANTINE_CRASH_AT = "GRYPH_QUARANTINE_CRASH_AT"  # a quarantine's points: "staged", "swapped"


def crash_if_chosen(variable: str, point: str) -> None:
    """Die at once, as a killed process would (no cleanup, no flush), when the environment's
    ``variable`` names this point."""
    if os.environ.get(variable) == point:
        os.kill(os.getpid(), signal.SIGKILL)
