"""Where a Kafka source's partitions stand (watermarks), and the errors of asking a broker."""

from __future__ import annotations

import time

import pytest

from gryph.compiler.errors import EngineError
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_positions import KafkaRange
from gryph.local_backend.sources.kafka.broker import watermarks

from .kafka_topics import new_topic, produce
from .test_kafka_reading import duckdb_rows, free_port


def _spec(bootstrap: str, topic: str) -> SourceSpec:
    return SourceSpec("clicks", "kafka", (bootstrap,), options=(("topics", topic), ("format", "text")))


def test_watermarks_of_every_partition_of_every_topic(kafka):
    two, one = new_topic(kafka.bootstrap, partitions=2), new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, two, [(None, b"a"), (None, b"b"), (None, b"c")], partition=0)
    produce(kafka.bootstrap, two, [(None, b"d")], partition=1)
    held = (KafkaRange(two, 0, 0, 3), KafkaRange(two, 1, 0, 1), KafkaRange(one, 0, 0, 0))
    assert watermarks(_spec(kafka.bootstrap, f"{two},{one}")) == tuple(sorted(held))  # by topic, then partition


def test_an_unknown_topic_names_the_closest_one(kafka):
    topic = new_topic(kafka.bootstrap, prefix="payments")
    with pytest.raises(EngineError) as info:
        watermarks(_spec(kafka.bootstrap, topic.replace("payments", "paymnts")))
    assert info.value.code == "STREAM_UNKNOWN_TOPIC" and info.value.exit_code == 3
    assert topic in (info.value.hint or "")


def test_an_unknown_topic_in_a_batch_is_the_same_error(kafka):
    from gryph.compiler.sources.stream_sources import bounded_kafka

    spec = bounded_kafka(_spec(kafka.bootstrap, "no-such-topic"), [KafkaRange("no-such-topic", 0, 0, 1)], 1)
    with pytest.raises(EngineError, match="no topic 'no-such-topic'"):
        duckdb_rows(spec)


def test_a_broker_nobody_listens_on_is_an_error_in_bounded_time():
    address = f"127.0.0.1:{free_port()}"
    started = time.monotonic()
    with pytest.raises(EngineError) as info:
        watermarks(_spec(address, "clicks"))
    assert time.monotonic() - started < 15
    assert info.value.code == "KAFKA_UNREACHABLE" and address in info.value.message


def test_a_consumer_reconnects_after_10_ms_unless_the_suite_says_otherwise():
    # librdkafka's default backoff (100 ms) held back the connection to the broker a bootstrap
    # address names by 50 ms, in every batch's first metadata request
    from gryph.local_backend.sources.kafka.consumer import consumer_config

    spec = _spec("127.0.0.1:9092", "clicks")
    assert consumer_config(spec)["reconnect.backoff.ms"] == 10
    chosen = SourceSpec(
        "clicks", "kafka", ("127.0.0.1:9092",), options=(*spec.options, ("kafka.reconnect.backoff.ms", 250))
    )
    assert consumer_config(chosen)["reconnect.backoff.ms"] == "250"
