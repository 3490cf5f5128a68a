"""``gryph stream status`` (where each source stands, what waits) and ``gryph stream reset``."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from ..store.stream_state import BatchInput
from .stream_runner import open_state, stream_suite
from .stream_source import stream_sources


def stream_status(source: str | Path, state: str | Path | None = None) -> str:
    """A few lines: the last batch, and per source its position, what the broker or folder holds
    beyond it, and whether a batch waits to be run again."""
    suite = stream_suite(source)
    stream_state = open_state(suite, state)
    try:
        lines = [f"stream of suite {suite.name!r} ({stream_state.path})"]
        last = stream_state.last_batch()
        if last is None:
            lines.append("no batch yet")
        else:
            when = dt.datetime.fromtimestamp(last.tmst / 1000, dt.timezone.utc).isoformat(timespec="seconds")
            lines.append(f"last batch {last.number} at {when} (__tmst {last.tmst}): {last.status}")
            if last.status == "intent":
                lines.append("  it did not finish: the next start runs it again, with the same time and input")
        for stream in stream_sources(suite).values():
            lines += stream.status(stream_state)
        return "\n".join(lines)
    finally:
        stream_state.close()


def reset_stream(source: str | Path, state: str | Path | None, to: str) -> str:
    """Set every stream source to its ``earliest`` or ``latest`` position; an unfinished batch is forgotten."""
    suite = stream_suite(source)
    stream_state = open_state(suite, state)
    try:
        taken = BatchInput()
        for name, stream in stream_sources(suite).items():
            getattr(taken, stream.part)[name] = list(stream.latest() if to == "latest" else stream.earliest())
        stream_state.reset(taken)
        return f"stream of suite {suite.name!r} reset to {to}: {', '.join(suite.streams)}"
    finally:
        stream_state.close()
