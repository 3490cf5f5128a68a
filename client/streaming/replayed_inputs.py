"""A state file is input: the unfinished batch a crash left is checked against the suite before
anything of it is read again.

Its intent names what the batch reads (stream_state.py): Kafka ranges, a folder's files, the
misses and earlier rows the stream keeps. Each must be what this stream could have planned: a
declared stream source; a partition the broker holds of one of its topics, with offsets it holds
(their order is checked as the state is read, state_rows.py); a file directly inside the source's
folder under a name the folder's listing takes; the kept files at the places this stream writes
them. Anything else is ``STREAM_STATE`` naming the state and the input, and nothing is read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from gryph.compiler.errors import EngineError, Location
from gryph.compiler.suites.suite import Suite

from ..store.stream_state import Batch
from .key_windows import batch_number
from .stream_source import stream_sources


def check_replayed(
    suite: Suite,
    batch: Batch,
    state: Path,
    retrying: Mapping[str, str | None],
    history_file: Callable[[str, int], str],
) -> None:
    """Refuse ``batch`` unless every input it names is one this stream plans. ``retrying``: per
    retrying rule, the misses file the batch before it left (None before a first batch);
    ``history_file(source, number)``: where batch ``number`` left the rows of ``source``."""

    def refuse(what: str, why: str) -> EngineError:
        return EngineError(
            "STREAM_STATE",
            f"the stream state {state} cannot be used: its unfinished batch {batch.number} names {what}, {why}; "
            "nothing of it was read",
            location=Location(str(state)),
            text=what,
            hint="the state was changed outside gryph, or it is another stream's: move it away to start the "
            "stream again, or forget the batch with gryph stream reset",
        )

    sources = stream_sources(suite)
    for part, kind in (("kafka", "Kafka"), ("files", "folder")):
        for name, read in getattr(batch.input, part).items():
            stream = sources.get(name)
            if stream is None or stream.part != part:
                raise refuse(f"the {kind} source {name!r}", "which the suite does not declare")
            unplanned = stream.unplanned(read)
            if unplanned is not None:
                raise refuse(*unplanned)
    for rule, path in batch.input.pending.items():
        if retrying.get(rule) is None or retrying[rule] != path:
            raise refuse(path, f"which is not where the misses of rule {rule!r} are kept")
    for source, paths in batch.input.history.items():
        for path in paths:
            number = batch_number(Path(path))
            if not 0 < number < batch.number or history_file(source, number) != path:
                raise refuse(path, f"which is not where earlier batches keep the rows of {source!r}")
    for name in batch.input.lost:
        if name not in batch.input.kafka:
            raise refuse(f"lost offsets of {name!r}", "which is no Kafka source of the batch")
    for name in batch.input.cutoff:
        if name not in retrying:
            raise refuse(f"the retry window of {name!r}", "which is no retrying rule of the suite")
