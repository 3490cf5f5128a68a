"""A state file is input: the unfinished batch a crash left is checked against the suite before
anything of it is read again.

Its intent names what the batch reads (stream_state.py): Kafka ranges, a folder's files, the
misses and earlier rows the stream keeps. Each must be what this stream could have planned: a
declared stream source; a partition the broker holds of one of its topics, with offsets in order;
a file directly inside the source's folder under a name the folder's listing takes; the kept
files at the places this stream writes them. Anything else is ``STREAM_STATE`` naming the state
and the input, and nothing is read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from gryph.compiler.errors import EngineError, Location
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import topics
from gryph.compiler.suites.suite import Suite

from ..store.stream_state import Batch
from .key_windows import batch_number


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

    for name, ranges in batch.input.kafka.items():
        spec = suite.sources.get(name)
        if spec is None or spec.format != "kafka" or name not in suite.streams:
            raise refuse(f"the Kafka source {name!r}", "which the suite does not declare")
        declared = topics(spec)
        held = _watermarks(spec) if ranges else {}
        for topic, partition, start, end in ranges:
            where = f"{topic}/{partition}"
            if topic not in declared:
                raise refuse(where, f"a topic source {name!r} does not read ({', '.join(declared)})")
            if (topic, partition) not in held:
                raise refuse(where, f"a partition the broker at {spec.paths[0]} does not have")
            if not 0 <= start <= end:
                raise refuse(f"{where} offsets {start} to {end}", "which are not a range of offsets")
            if end > held[(topic, partition)][1]:  # planned below the high watermark, which never falls
                raise refuse(f"{where} offsets {start} to {end}", "beyond the offsets the broker holds")
    for name, files in batch.input.files.items():
        spec = suite.sources.get(name)
        if spec is None or spec.format != "folder" or name not in suite.streams:
            raise refuse(f"the folder source {name!r}", "which the suite does not declare")
        folder = spec.paths[0]
        for path, _, _ in files:
            entry = os.path.basename(path)
            if path != os.path.join(folder, entry) or entry in ("", ".", "..") or entry.startswith((".", "_")):
                raise refuse(path, f"which is not a file of the folder {folder}")
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


def _watermarks(spec: SourceSpec) -> dict[tuple[str, int], tuple[int, int]]:
    from .kafka_offsets import watermarks  # confluent-kafka loads for Kafka sources only

    return watermarks(spec)
