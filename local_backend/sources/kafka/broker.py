"""What a stream's client asks the broker between batches, whatever engine reads the batch: where
each partition of a Kafka source stands (its low and high watermarks), through the consumer a
batch shares with its read (``shared_consumers``). The one engine module client/streaming
imports (pyproject.toml's import contracts say so).

A stream plans each batch from the watermarks (``min(high, start + cap)``, a start below ``low``
is lost data); asked of the broker in bounded time, with the errors of the DuckDB reader.
"""

from __future__ import annotations

from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_positions import KafkaRange
from gryph.compiler.sources.stream_sources import topics

from .consumer import METADATA_TIMEOUT_S, consumer_for, shared_consumers, unreachable

__all__ = ["shared_consumers", "watermarks"]


def watermarks(spec: SourceSpec) -> tuple[KafkaRange, ...]:
    """Per partition of every topic of ``spec``, by topic and partition, the offsets the broker
    holds: from the first it still has (low) to the one its next message will get (high; under
    ``read_committed``, the last stable one). ``STREAM_UNKNOWN_TOPIC`` for a topic the broker
    lacks, ``KAFKA_UNREACHABLE`` when it does not answer."""
    from confluent_kafka import KafkaException, TopicPartition

    wanted = topics(spec)
    marks = []
    with consumer_for(spec, wanted) as (consumer, metadata):
        for topic in wanted:
            for partition in sorted(metadata.topics[topic].partitions):
                part = TopicPartition(topic, partition)
                try:
                    low, high = consumer.get_watermark_offsets(part, timeout=METADATA_TIMEOUT_S, cached=False)
                except KafkaException:
                    raise unreachable(spec, METADATA_TIMEOUT_S, f" for {topic}/{partition}'s offsets") from None
                marks.append(KafkaRange(topic, partition, low, high))
    return tuple(sorted(marks))
