"""One bounded Kafka batch into DuckDB: per partition the offsets [start, end) of the spec's
``ranges``, read with confluent-kafka into an Arrow table of raw messages, then parsed
into an Arrow table of the columns ``stream_schema`` declares: by Arrow's JSON reader where it
reads them exactly as the SQL would (arrow_json.py), else in DuckDB (values.py).

Transactions leave gaps (their markers and aborted records are never delivered under
``read_committed``): a partition is done at its first offset at or past ``end - 1``, or when the
consumer's position reaches ``end`` at the partition's committed end. A broker that stops
answering mid-batch is an error after ``IDLE_TIMEOUT_S``, never a wait without end.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections import OrderedDict
from operator import itemgetter
from typing import TYPE_CHECKING, cast

import duckdb

from gryph.compiler.errors import EngineError
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_sources import (
    CONSUMER_PREFIX,
    MALFORMED,
    fails_on_malformed,
    malformed_message,
    offsets_lost,
    value_format,
    value_schema,
)

from ...sql.quoting import ident
from .arrow_json import arrow_parsed, arrow_rows
from .consumer import consumer_for, kafka_failed, unreachable
from .values import RAW_VALUE, parsed_messages, with_csv_fields

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
    if fails_on_malformed(spec):
        first = con.execute(
            f'SELECT topic, partition, "offset" FROM {relation} WHERE {ident(MALFORMED)} '
            'ORDER BY topic, partition, "offset" LIMIT 1'
        ).fetchall()
        if first:
            con.unregister(arrow_name)
            raise malformed_message(spec, *first[0])
    return relation


def parsed_batch(con: duckdb.DuckDBPyConnection, spec: SourceSpec) -> pa.Table:
    """The batch's messages parsed into the source's columns (``__tmst`` aside), as Arrow.

    A batch's offsets name the same messages every time, and a run registers its sources more
    than once (to learn views' schemas, then to run, then for record samples): the last batches
    are kept parsed, so the broker is asked and the values are parsed once per batch."""
    # what decides a batch's rows: the brokers, the offsets, the consumer's settings, the parsing
    consumer = tuple((k, v) for k, v in spec.options if k.startswith(CONSUMER_PREFIX))
    key = (spec.paths, spec.ranges, consumer, value_format(spec), value_schema(spec))
    if key in _LAST_READ:
        _LAST_READ.move_to_end(key)
        return _LAST_READ[key]
    messages = _read_messages(spec)
    members = arrow_parsed(spec, messages, RAW_VALUE)
    table = None if members is None else arrow_rows(spec, members)
    if table is None:
        table = _sql_parsed(con, spec, messages, members)
    _LAST_READ[key] = table
    while len(_LAST_READ) > _KEPT_BATCHES:
        _LAST_READ.popitem(last=False)
    return table


def _sql_parsed(
    con: duckdb.DuckDBPyConnection, spec: SourceSpec, messages: pa.Table, members: pa.Table | None
) -> pa.Table:
    """The messages parsed in DuckDB: from their values, or from their members when Arrow read
    them (``members``) and only times and dates remain to convert."""
    raw = "__gryph_kafka_raw"
    con.register(raw, with_csv_fields(spec, messages) if members is None else members)
    try:
        relation = parsed_messages(spec, ident(raw), members_read=members is not None)
        return con.sql(f"SELECT * FROM {relation}").to_arrow_table()
    finally:
        con.unregister(raw)


_KEPT_BATCHES = 4
_LAST_READ: OrderedDict[tuple, pa.Table] = OrderedDict()


def _read_messages(spec: SourceSpec) -> pa.Table:
    ranges = {r.part: (r.start, r.end) for r in spec.ranges if not r.empty}
    kept = _Kept()
    if ranges:
        with consumer_for(spec, sorted({topic for topic, _ in ranges})) as (consumer, _):
            _consume(spec, consumer, ranges, kept)
    return kept.table()


class _Kept:
    """The messages of a batch as Arrow columns, added a chunk at a time: the chunk's message
    objects are dropped once their columns are built (keeping 100,000 of them until the end of a
    batch made reading it a third slower)."""

    def __init__(self) -> None:
        self._batches: list[pa.RecordBatch] = []

    def add(self, messages: list, run: tuple[str, int, list[int]] | None = None) -> None:
        """``messages`` in order; ``run``: the topic, partition and offsets they all share, when
        the caller knows them."""
        import pyarrow as pa
        from confluent_kafka import Message

        if not messages:
            return
        count = len(messages)
        if run is None:
            topics = pa.array(list(map(Message.topic, messages)), pa.string())
            partitions = pa.array(list(map(Message.partition, messages)), pa.int64())
            offsets = pa.array(list(map(Message.offset, messages)), pa.int64())
        else:
            topics = pa.repeat(pa.scalar(run[0], pa.string()), count)
            partitions = pa.repeat(pa.scalar(run[1], pa.int64()), count)
            offsets = pa.array(run[2], pa.int64())
        times = pa.array(list(map(itemgetter(1), map(Message.timestamp, messages))), pa.int64())
        columns = [
            _text(list(map(Message.value, messages))),
            _text(list(map(Message.key, messages))),
            topics,
            partitions,
            offsets,
            times.cast(pa.timestamp("ms")),
        ]
        self._batches.append(pa.RecordBatch.from_arrays(columns, schema=_raw_schema()))

    def table(self) -> pa.Table:
        import pyarrow as pa

        return pa.Table.from_batches(self._batches, schema=_raw_schema())


def _raw_schema() -> pa.Schema:
    """The raw messages' columns: the value's text and the broker's columns."""
    import pyarrow as pa

    return pa.schema(
        [
            (RAW_VALUE, pa.string()),
            ("key", pa.string()),
            ("topic", pa.string()),
            ("partition", pa.int64()),
            ("offset", pa.int64()),
            ("timestamp", pa.timestamp("ms")),
        ]
    )


def _consume(spec: SourceSpec, consumer, ranges: dict[tuple[str, int], tuple[int, int]], kept: _Kept) -> None:
    """Adds to ``kept`` the messages of ``ranges``, in the order the broker gives them."""
    from confluent_kafka import KafkaError, KafkaException, TopicPartition

    transient = (KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN)
    assigned = [TopicPartition(topic, partition, start) for (topic, partition), (start, _) in ranges.items()]
    consumer.assign(assigned)
    consumer.resume(assigned)  # a shared consumer (consumer.shared_consumers) may have paused them before
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
        if _take_run(messages, pending, kept, done):
            last_progress = time.monotonic()
            messages = []
        taken = []
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
            taken.append(message)
            if offset >= end - 1:
                done(key)
        kept.add(taken)
        if pending:
            # past a range's last record, only markers or aborted records: the position moves on
            for part in consumer.position([TopicPartition(*key) for key in pending]):
                if part.offset >= pending[(part.topic, part.partition)][1]:
                    done((part.topic, part.partition))
                    last_progress = time.monotonic()
        if pending and time.monotonic() - last_progress > IDLE_TIMEOUT_S:
            waiting = ", ".join(f"{t}/{p} (to offset {end})" for (t, p), (_, end) in sorted(pending.items()))
            raise unreachable(spec, IDLE_TIMEOUT_S, f" while reading {waiting}")


def _take_run(messages: list, pending: dict[tuple[str, int], tuple[int, int]], kept: _Kept, done) -> bool:
    """The common chunk, taken without a Python step per message: records only (no error
    events), all of one pending partition, whose offsets rise, so the range's records are a
    prefix. False (nothing taken) for any other chunk, which the caller takes message by message."""
    from confluent_kafka import Message

    if not messages or any(map(Message.error, messages)):
        return False
    topics, partitions = set(map(Message.topic, messages)), set(map(Message.partition, messages))
    if len(topics) != 1 or len(partitions) != 1:
        return False
    key = (topics.pop(), partitions.pop())
    if key not in pending:
        return False
    offsets = cast(list[int], list(map(Message.offset, messages)))  # a delivered message has its offset
    end = pending[key][1]
    taken = bisect_left(offsets, end)
    kept.add(messages[:taken], (*key, offsets[:taken]))
    if taken < len(offsets) or offsets[-1] >= end - 1:
        done(key)
    return True


def _read_error(spec: SourceSpec, error, key: tuple[str, int], span: tuple[int, int] | None) -> EngineError:
    from confluent_kafka import KafkaError

    if error.code() in (KafkaError._AUTO_OFFSET_RESET, KafkaError.OFFSET_OUT_OF_RANGE) and span is not None:
        return offsets_lost(spec, *key, f"from {span[0]}")
    return kafka_failed(spec, f"reading {key[0]}/{key[1]}", error.str())


def _text(values: list) -> pa.Array:
    """Bytes as UTF-8 text; bytes that are not UTF-8 become U+FFFD, as when Spark casts them."""
    import pyarrow as pa

    try:
        return pa.array(values, pa.binary()).cast(pa.string())  # checked in C: the common case pays no Python per value
    except pa.ArrowInvalid:
        return pa.array([None if v is None else v.decode("utf-8", "replace") for v in values], pa.string())
