"""``gryph stream status`` (where each source stands, what waits) and ``gryph stream reset``."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

from gryph.compiler.sources.source_specs import SourceSpec

from .arrived_files import arrived_files
from .stream_runner import open_state, stream_suite


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
        for name in suite.streams:
            spec = suite.sources[name]
            if spec.format == "kafka":
                from .kafka_offsets import watermarks  # confluent-kafka loads for Kafka sources only

                positions = stream_state.kafka_positions(name)
                for (topic, part), (low, high) in sorted(watermarks(spec).items()):
                    at = positions.get((topic, part))
                    where = "not read yet" if at is None else f"at offset {at}, lag {high - at}"
                    lines.append(f"{name}: {topic}/{part} {where} (log {low}..{high})")
                    if at is not None and at < low:
                        lines.append(f"  offsets {at} to {low - 1} were deleted before they were read: {_loss(spec)}")
            else:
                taken = stream_state.taken_files(name)
                ready, more = arrived_files(spec, taken, time.time_ns())
                lines.append(f"{name}: {len(taken)} files read, {len(ready) + more} settled files pending")
        return "\n".join(lines)
    finally:
        stream_state.close()


def _loss(spec: SourceSpec) -> str:
    """What the next batch does about offsets the broker deleted before they were read."""
    if spec.option("accept_data_loss", False):
        return "the next batch counts them as lost"
    return "the next batch fails (DATA_LOST) unless the source says accept_data_loss = true"


def reset_stream(source: str | Path, state: str | Path | None, to: str) -> str:
    """Set every stream source to its ``earliest`` or ``latest`` position; an unfinished batch is forgotten."""
    suite = stream_suite(source)
    stream_state = open_state(suite, state)
    try:
        positions, folders = {}, {}
        for name in suite.streams:
            spec = suite.sources[name]
            if spec.format == "kafka":
                from .kafka_offsets import watermarks

                marks = watermarks(spec)
                positions[name] = {part: (high if to == "latest" else low) for part, (low, high) in marks.items()}
            else:
                folders[name] = arrived_files(spec, (), time.time_ns(), capped=False)[0] if to == "latest" else []
        stream_state.reset(positions, folders)
        return f"stream of suite {suite.name!r} reset to {to}: {', '.join(suite.streams)}"
    finally:
        stream_state.close()
