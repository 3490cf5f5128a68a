"""One bounded Kafka batch into DuckDB: per partition the offsets [start, end) of the spec's
``offsets`` option, read with confluent-kafka into an Arrow table of raw messages, then parsed in
DuckDB (kafka_values.py) into an Arrow table of the columns ``stream_schema`` declares.

Transactions leave gaps (their markers and aborted records are never delivered under
``read_committed``): a partition is done at its first offset at or past ``end - 1``, or when the
consumer's position reaches ``end`` at the partition's committed end. A broker that stops
answering mid-batch is an error after ``IDLE_TIMEOUT_S``, never a wait without end.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import TYPE_CHECKING

import duckdb

from gryph.compiler.errors import EngineError, Location
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import (
    CONSUMER_PREFIX,
    MALFORMED,
    OFFSETS,
    kafka_ranges,
    value_format,
    value_schema,
)

from ..sql.quoting import ident
from .kafka_consumer import kafka_failed, open_consumer, unreachable
from .kafka_values import RAW_VALUE, parsed_messages, with_csv_fields

if TYPE_CHECKING:
    import pyarrow as pa

IDLE_TIMEOUT_S = 15.0
_BATCH = 10_000  # messages per consume() call
# consume() returns after its timeout unless it filled the _BATCH: a short one, so the end of a
# batch (all of a small one) is not held up; the loop asks again at once
_WAIT_S = 0.02


def kafka_relation(con: duckdb.DuckDBPyConnection, spec: SourceSpec, arrow_name: str) -> str:
    """The batch's parsed rows as a relation over the Arrow table registered as ``arrow_name``;
    with ``on_malformed = "fail"``, ``STREAM_MALFORMED`` at the first message that does not parse."""
    con.register(arrow_name, parsed_batch(con, spec))
    relation = ident(arrow_name)
    if spec.option("on_malformed", "count") == "fail":
        first = con.execute(
            f'SELECT topic, partition, "offset" FROM {relation} WHERE {ident(MALFORMED)} '
            'ORDER BY topic, partition, "offset" LIMIT 1'
        ).fetchall()
        if first:
            con.unregister(arrow_name)
            topic, partition, offset = first[0]
            raise EngineError(
                "STREAM_MALFORMED",
                f"source {spec.name!r}: the message at {topic}/{partition}/{offset} is not "
                f"{value_format(spec)} of the source's schema",
                location=spec.location or Location(),
                text=f"{topic}/{partition}/{offset}",
                hint='on_malformed = "count" counts such messages (their columns NULL) instead of failing',
            )
    return relation


def parsed_batch(con: duckdb.DuckDBPyConnection, spec: SourceSpec) -> pa.Table:
    """The batch's messages parsed into the source's columns (``__tmst`` aside), as Arrow.

    A batch's offsets name the same messages every time, and a run registers its sources more
    than once (to learn views' schemas, then to run, then for record samples): the last batches
    are kept parsed, so the broker is asked and the values are parsed once per batch."""
    # what decides a batch's rows: the brokers, the offsets, the consumer's settings, the parsing
    options = tuple((k, v) for k, v in spec.options if k == OFFSETS or k.startswith(CONSUMER_PREFIX))
    key = (spec.paths, options, value_format(spec), value_schema(spec))
    if key in _LAST_READ:
        _LAST_READ.move_to_end(key)
        return _LAST_READ[key]
    raw = "__gryph_kafka_raw"
    con.register(raw, with_csv_fields(spec, _read_messages(spec)))
    try:
        table = con.sql(f"SELECT * FROM {parsed_messages(spec, ident(raw))}").to_arrow_table()
    finally:
        con.unregister(raw)
    _LAST_READ[key] = table
    while len(_LAST_READ) > _KEPT_BATCHES:
        _LAST_READ.popitem(last=False)
    return table


_KEPT_BATCHES = 4
_LAST_READ: OrderedDict[tuple, pa.Table] = OrderedDict()


def _read_messages(spec: SourceSpec) -> pa.Table:
    ranges = {tp: span for tp, span in kafka_ranges(spec).items() if span[1] > span[0]}
    columns: dict[str, list] = {name: [] for name in (RAW_VALUE, "key", "topic", "partition", "offset", "timestamp")}
    if ranges:
        consumer, _ = open_consumer(spec, sorted({topic for topic, _ in ranges}))
        try:
            _consume(spec, consumer, ranges, columns)
        finally:
            consumer.close()
    return _arrow(columns)


def _consume(spec: SourceSpec, consumer, ranges: dict[tuple[str, int], tuple[int, int]], columns) -> None:
    from confluent_kafka import KafkaError, KafkaException, TopicPartition

    transient = (KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN)
    consumer.assign([TopicPartition(topic, partition, start) for (topic, partition), (start, _) in ranges.items()])
    pending = dict(ranges)

    def done(key: tuple[str, int]) -> None:
        del pending[key]
        consumer.pause([TopicPartition(*key)])

    last_progress = time.monotonic()
    while pending:
        try:
            messages = consumer.consume(num_messages=_BATCH, timeout=_WAIT_S)
        except KafkaException as exc:
            raise kafka_failed(spec, "a read", exc) from None
        for message in messages:
            key = (message.topic(), message.partition())
            error = message.error()
            if error is not None and error.code() in transient:
                continue  # librdkafka reconnects by itself; the idle deadline below bounds the wait
            if error is not None and error.code() != KafkaError._PARTITION_EOF:
                raise _read_error(spec, error, key, pending.get(key))
            if key not in pending:
                continue
            last_progress = time.monotonic()
            offset, end = message.offset(), pending[key][1]
            if error is not None:  # the partition's committed end: offset is the next one it will have
                if offset >= end:
                    done(key)
                continue
            if offset >= end:
                done(key)
                continue
            _append(columns, message)
            if offset >= end - 1:
                done(key)
        if pending:
            # past a range's last record, only markers or aborted records: the position moves on
            for part in consumer.position([TopicPartition(*key) for key in pending]):
                if part.offset >= pending[(part.topic, part.partition)][1]:
                    done((part.topic, part.partition))
                    last_progress = time.monotonic()
        if pending and time.monotonic() - last_progress > IDLE_TIMEOUT_S:
            waiting = ", ".join(f"{t}/{p} (to offset {end})" for (t, p), (_, end) in sorted(pending.items()))
            raise unreachable(spec, IDLE_TIMEOUT_S, f" while reading {waiting}")


def _read_error(spec: SourceSpec, error, key: tuple[str, int], span: tuple[int, int] | None) -> EngineError:
    from confluent_kafka import KafkaError

    if error.code() in (KafkaError._AUTO_OFFSET_RESET, KafkaError.OFFSET_OUT_OF_RANGE) and span is not None:
        return EngineError(
            "DATA_LOST",
            f"source {spec.name!r}: {key[0]}/{key[1]} lost offsets from {span[0]} before they were read "
            f"({error.str()})",
            location=spec.location or Location(),
            text=f"{key[0]}/{key[1]}",
            hint="the broker's retention deleted them; accept_data_loss = true reads on from what is left",
        )
    return kafka_failed(spec, f"reading {key[0]}/{key[1]}", error.str())


def _append(columns: dict[str, list], message) -> None:
    columns[RAW_VALUE].append(message.value())
    columns["key"].append(message.key())
    columns["topic"].append(message.topic())
    columns["partition"].append(message.partition())
    columns["offset"].append(message.offset())
    columns["timestamp"].append(message.timestamp()[1])


def _arrow(columns: dict[str, list]) -> pa.Table:
    import pyarrow as pa

    return pa.table(
        {
            RAW_VALUE: _text(columns[RAW_VALUE]),
            "key": _text(columns["key"]),
            "topic": pa.array(columns["topic"], pa.string()),
            "partition": pa.array(columns["partition"], pa.int64()),
            "offset": pa.array(columns["offset"], pa.int64()),
            "timestamp": pa.array(columns["timestamp"], pa.int64()).cast(pa.timestamp("ms")),
        }
    )


def _text(values: list) -> pa.Array:
    """Bytes as UTF-8 text; bytes that are not UTF-8 become U+FFFD, as when Spark casts them."""
    import pyarrow as pa

    raw = pa.array(values, pa.binary())
    try:
        return raw.cast(pa.string())  # checked in C: the common case pays no Python per value
    except pa.ArrowInvalid:
        return pa.array([None if v is None else v.decode("utf-8", "replace") for v in values], pa.string())
