"""Deciding what the next micro-batch reads, and turning that into bounded sources.

Kafka: per partition from the committed position (a partition never seen before: from
``starting`` on the stream's first batch, from its log start afterwards, as a partition added
while the stream runs) to ``min(high watermark, start + cap)``. A position below the log start
lost records to retention: DATA_LOST, unless the suite accepts loss (then counted). Folders: the
settled files not taken before (arrived_files.py).
"""

from __future__ import annotations

import time
from dataclasses import replace

from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import bounded_files, bounded_kafka, offsets_lost
from gryph.compiler.suites.suite import Suite

from ..store.stream_state import BatchInput, StreamState
from .arrived_files import arrived_files, linked_outside
from .empty_batches import empty_frame


def next_input(suite: Suite, state: StreamState) -> tuple[BatchInput, dict[str, int]]:
    """The next batch's input, and per stream source what waits beyond it (its lag)."""
    batch_input, lag = BatchInput(), {}
    now_ns = time.time_ns()
    for name in suite.streams:
        spec = suite.sources[name]
        if spec.format == "kafka":
            ranges, lost, lag[name] = _kafka_ranges(spec, state)
            batch_input.kafka[name] = ranges
            if lost:
                batch_input.lost[name] = lost
        else:
            batch_input.files[name], lag[name] = arrived_files(spec, state.taken_files(name), now_ns)
    return batch_input, lag


def _kafka_ranges(spec: SourceSpec, state: StreamState) -> tuple[list[tuple[str, int, int, int]], int, int]:
    from .kafka_offsets import watermarks  # confluent-kafka (the kafka extra) loads for Kafka sources only

    marks = watermarks(spec)
    positions = state.kafka_positions(spec.name)
    if not state.started(spec.name):
        starting = spec.option("starting", "earliest")
        positions = {part: (high if starting == "latest" else low) for part, (low, high) in marks.items()}
        state.position(spec.name, positions)
    cap = spec.option("max_records_per_batch")
    ranges, lost, lag = [], 0, 0
    for (topic, partition), (low, high) in sorted(marks.items()):
        start = positions.get((topic, partition), low)  # a partition added while running: from its start
        if start < low:
            if not spec.option("accept_data_loss", False):
                raise offsets_lost(spec, topic, partition, f"{start} to {low - 1}")
            lost += low - start
            start = low
        end = high if cap is None else min(high, start + int(str(cap)))
        ranges.append((topic, partition, start, end))
        lag += high - end
    return ranges, lost, lag


def bounded_suite(suite: Suite, batch_input: BatchInput, tmst: int) -> Suite:
    """``suite`` with each stream source bounded to the batch's input, every row stamped ``tmst``
    (a Griffin job's too: its time is the batch's); static sources as they are (read again for
    every batch)."""
    sources = dict(suite.sources)
    for name, ranges in batch_input.kafka.items():
        parts = {(topic, part): (start, end) for topic, part, start, end in ranges}
        sources[name] = bounded_kafka(suite.sources[name], parts, tmst)
    for name, files in batch_input.files.items():
        spec = suite.sources[name]
        paths = tuple(path for path, _, _ in files)
        sources[name] = bounded_files(spec, paths, tmst) if paths else empty_frame(spec, tmst)
    return replace(suite, sources=sources, timestamp_ms=tmst)


SAMPLE_MESSAGES = 100  # per partition: the newest messages a stream's checks are validated against


def validation_batch(suite: Suite) -> Suite:
    """``suite`` with every stream bounded to a batch that validation can read: no rows, or, when
    a view learns its columns from the data (Griffin's ``from_json``), the newest messages of each
    partition and the newest files (there is no schema without documents to read it from)."""
    sampled = any(view.json_of is not None for view in suite.views)
    batch_input, tmst = BatchInput(), int(time.time() * 1000)
    for name in suite.streams:
        spec = suite.sources[name]
        if spec.format == "kafka":
            from .kafka_offsets import watermarks  # confluent-kafka loads for Kafka sources only

            marks = watermarks(spec) if sampled else {}
            batch_input.kafka[name] = [
                (topic, part, max(low, high - SAMPLE_MESSAGES), high) for (topic, part), (low, high) in marks.items()
            ]
        else:
            files = arrived_files(spec, (), time.time_ns(), capped=False)[0] if sampled else []
            outside = linked_outside(spec, files)
            batch_input.files[name] = [f for f in files if f[0] not in outside][-10:]
    return bounded_suite(suite, batch_input, tmst)
