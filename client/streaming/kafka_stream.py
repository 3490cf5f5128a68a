"""A Kafka source as a stream source: its position is the next offset of each partition.

Per partition a batch reads from the committed position (a partition never seen before: from
``starting`` on the stream's first batch, from its log start afterwards, as a partition added
while the stream runs) to ``min(high watermark, start + limit)``. A position below the log start
lost records to retention: DATA_LOST, unless the suite accepts loss (then counted). The broker is
asked through the one engine module streams import (local_backend/sources/kafka/broker.py), its
client loaded for Kafka sources only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_positions import KafkaRange
from gryph.compiler.sources.stream_sources import bounded_kafka, offsets_lost, topics

from .stream_source import Bound, StreamSource, declared_limit

if TYPE_CHECKING:
    from ..results.run_result import RunResult
    from ..store.stream_state import BatchInput, StreamState

Positions = dict[tuple[str, int], int]  # (topic, partition) -> the next offset to read
SAMPLE_MESSAGES = 100  # per partition: the newest messages a stream's checks are validated against


@dataclass(frozen=True)
class KafkaStream:
    """A ``kafka(...)`` source of a stream (see the module's docstring)."""

    spec: SourceSpec
    part: Literal["kafka", "files"] = "kafka"

    @property
    def default_limit(self) -> int | None:
        return declared_limit(self.spec, "max_records_per_batch")

    def latest(self) -> tuple[KafkaRange, ...]:
        """Per partition of every topic, the offsets the broker holds: from its log start (``low``)
        to the offset its next message will get (``high``, under read_committed the last stable)."""
        from gryph.local_backend.sources.kafka.broker import watermarks  # the kafka extra: Kafka sources only

        return watermarks(self.spec)

    def earliest(self) -> tuple[KafkaRange, ...]:
        """Nothing read, every partition at its log start (where ``reset --to earliest`` puts it)."""
        return tuple(replace(held, end=held.start) for held in self.latest())

    def start(self, state: StreamState) -> Positions:
        """The committed positions. The stream's first batch records where ``starting`` puts each
        partition (its log start, or past what is there now) before it reads, so a batch that
        finds nothing new does not move the start along with the broker."""
        if not state.started(self.spec.name):
            latest = self.spec.option("starting", "earliest") == "latest"
            state.position(self.spec.name, {r.part: r.end if latest else r.start for r in self.latest()})
        return state.kafka_positions(self.spec.name)

    def bound(self, start: Positions, limit: int | None) -> Bound[KafkaRange]:
        ranges, lost, lag = [], 0, 0
        for log in self.latest():
            at = start.get(log.part, log.start)  # a partition added while running: from its start
            if at < log.start:
                if not self.spec.option("accept_data_loss", False):
                    raise offsets_lost(self.spec, log.topic, log.partition, f"{at} to {log.start - 1}")
                lost += log.start - at
                at = log.start
            end = log.end if limit is None else min(log.end, at + limit)
            ranges.append(KafkaRange(log.topic, log.partition, at, end))
            lag += log.end - end
        return Bound(tuple(ranges), lag, lost)

    def bounded(self, read: Sequence[KafkaRange], tmst: int) -> SourceSpec:
        return bounded_kafka(self.spec, read, tmst)

    def readable(self, read: Sequence[KafkaRange]) -> tuple[tuple[KafkaRange, ...], dict[str, list[str]]]:
        """All of it: offsets the broker deleted since are the reader's to find (DATA_LOST)."""
        return tuple(read), {}

    def sample(self) -> tuple[KafkaRange, ...]:
        return tuple(replace(held, start=max(held.start, held.end - SAMPLE_MESSAGES)) for held in self.latest())

    def unplanned(self, read: Sequence[KafkaRange]) -> tuple[str, str] | None:
        """The first range of ``read`` this source could not have planned (what, why); None if none."""
        declared = topics(self.spec)
        held = {r.part: r for r in self.latest()} if read else {}
        for r in read:
            where = f"{r.topic}/{r.partition}"
            if r.topic not in declared:
                return where, f"a topic source {self.spec.name!r} does not read ({', '.join(declared)})"
            if r.part not in held:
                return where, f"a partition the broker at {self.spec.paths[0]} does not have"
            if r.end > held[r.part].end:  # planned below the high watermark, which never falls
                return f"{where} offsets {r.start} to {r.end}", "beyond the offsets the broker holds"
        return None

    def describe(self, batch_input: BatchInput, result: RunResult, lag: int, left_out: dict) -> dict:
        name = self.spec.name
        ranges = batch_input.kafka[name]
        part: dict = {
            "from": {f"{r.topic}/{r.partition}": r.start for r in ranges},
            "to": {f"{r.topic}/{r.partition}": r.end for r in ranges},
            "malformed": result.malformed.get(name, 0),
        }
        if name in batch_input.lost:
            part["lost"] = batch_input.lost[name]
        return {**part, "rows": result.rows_read.get(name, 0), "lag": lag}

    def read_nothing(self, batch_input: BatchInput, result: RunResult) -> bool:
        """Whether the batch held no message at all: only aborted transactions' messages or their
        commit and abort markers, which a read_committed consumer skips."""
        return not (result.rows_read.get(self.spec.name, 0) or result.malformed.get(self.spec.name, 0))

    def status(self, state: StreamState) -> list[str]:
        name, positions = self.spec.name, state.kafka_positions(self.spec.name)
        lines = []
        for log in self.latest():
            at = positions.get(log.part)
            where = "not read yet" if at is None else f"at offset {at}, lag {log.end - at}"
            lines.append(f"{name}: {log.topic}/{log.partition} {where} (log {log.start}..{log.end})")
            if at is not None and at < log.start:
                lines.append(f"  offsets {at} to {log.start - 1} were deleted before they were read: {self._loss()}")
        return lines

    def _loss(self) -> str:
        """What the next batch does about offsets the broker deleted before they were read."""
        if self.spec.option("accept_data_loss", False):
            return "the next batch counts them as lost"
        return "the next batch fails (DATA_LOST) unless the source says accept_data_loss = true"


def one_connection(sources: Iterable[StreamSource]) -> AbstractContextManager[None]:
    """Within: a batch's offsets and its read share one Kafka connection per consumer
    configuration (each connection and metadata request cost a batch of one message about
    60 ms); a stream without Kafka sources loads no Kafka client."""
    if not any(isinstance(source, KafkaStream) for source in sources):
        return nullcontext()
    from gryph.local_backend.sources.kafka.broker import shared_consumers

    return shared_consumers()
