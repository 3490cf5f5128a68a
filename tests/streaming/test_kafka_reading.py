"""Bounded Kafka batches read on DuckDB (confluent-kafka into Arrow, parsed in DuckDB) and on
Spark (the cluster's Kafka batch read): the same rows, as written here by hand, on both."""

from __future__ import annotations

import datetime as dt
import math
import socket
import time
from contextlib import closing

import pytest

from gryph.compiler.errors import EngineError
from gryph.compiler.sources.declared_schemas import parse_schema
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_positions import KafkaRange
from gryph.compiler.sources.stream_sources import bounded_kafka, stream_schema
from gryph.local_backend.engine import DuckDBEngine
from gryph.local_backend.sources.source_views import register_source
from tests.support.plan_helpers import read, run_one

from .kafka_topics import new_topic, produce, produce_in_transaction

STAMP = 1_764_000_000_000
BASE = dt.datetime(2023, 11, 14, 22, 13, 20)  # BASE_TIME_MS as a UTC time
JSON_SCHEMA = "id bigint, ts timestamp, user string, score double, ok boolean"
JSON_MESSAGES = [
    (b"k1", b'{"id": 1, "ts": "2024-01-02T03:04:05", "user": "ann", "score": 1.5, "ok": true}'),
    (None, '{"id": 2, "ts": null, "user": "Zoë 🚀", "score": null, "ok": false}'.encode()),  # no key; NULLs
    ("ключ".encode(), b'{"id": 3, "user": "bob"'),  # not JSON
    (b"k4", b'{"id": "four", "user": "carl"}'),  # a string where a bigint is declared
    (b"k5", b"[1, 2]"),  # JSON, but not an object
    (b"k6", '{"id": 6, "user": {"nested": [1, "é"]}, "extra": 1}'.encode()),  # an object as text; missing fields
    (b"k7", b'{"id": 7, "ts": "2024-01-02T03:04:05+01:00", "user": "d", "score": 2, "ok": true}'),
    (b"k8", None),  # a message without a value
]
MALFORMED_ROW = (None, None, None, None, None)
# by hand: the value's columns, then key; topic, partition, offset, timestamp, __malformed, __tmst follow
JSON_EXPECTED = [
    ((1, dt.datetime(2024, 1, 2, 3, 4, 5), "ann", 1.5, True), "k1", False),
    ((2, None, "Zoë 🚀", None, False), None, False),
    (MALFORMED_ROW, "ключ", True),
    (MALFORMED_ROW, "k4", True),
    (MALFORMED_ROW, "k5", True),
    ((6, None, '{"nested":[1,"é"]}', None, None), "k6", False),
    ((7, dt.datetime(2024, 1, 2, 2, 4, 5), "d", 2.0, True), "k7", False),
    (MALFORMED_ROW, "k8", True),
]
CSV_SCHEMA = "id bigint, name string, score double"
CSV_MESSAGES = [
    (b"a", b"1,ann,1.5"),
    (b"b", b'2,"b, with comma",-Inf'),
    (b"c", b"3,carl"),  # a field short
    (b"d", b"x,dora,1"),  # not a bigint
    (b"e", b"5,,"),  # empty fields are NULL
    (b"f", "6,ünïcødé,2e3".encode()),
]
CSV_EXPECTED = [
    ((1, "ann", 1.5), "a", False),
    ((2, "b, with comma", -math.inf), "b", False),
    ((None, None, None), "c", True),
    ((None, None, None), "d", True),
    ((5, None, None), "e", False),
    ((6, "ünïcødé", 2000.0), "f", False),
]


def _spec(bootstrap: str, topic: str, kind: str, schema: str | None, **options: object) -> SourceSpec:
    declared = parse_schema(schema) if schema else None
    return SourceSpec(
        "clicks",
        "kafka",
        (bootstrap,),
        options=(("topic", topic), ("format", kind), *options.items()),
        schema=declared,
    )


def _expected(topic: str, rows: list, offsets: range, partition: int = 0) -> list[tuple]:
    return [
        (*rows[o][0], rows[o][1], topic, partition, o, BASE + dt.timedelta(milliseconds=o), rows[o][2], STAMP)
        for o in offsets
    ]


def duckdb_rows(spec: SourceSpec) -> list[tuple]:
    engine = DuckDBEngine()
    try:
        loaded = register_source(engine.connection, spec, "clicks")
        rows = engine.connection.execute('SELECT * FROM clicks ORDER BY "partition", "offset"').fetchall()
        loaded.drop(engine.connection)
        return rows
    finally:
        engine.close()


def spark_rows(spec: SourceSpec, remote: str) -> list[tuple]:
    from gryph.client.spark import SparkEngine
    from gryph.client.spark.sources.source_loading import load_source

    with SparkEngine(remote) as engine:
        df, _ = load_source(engine.spark, spec)
        return [tuple(row) for row in df.orderBy("partition", "offset").collect()]


def _rows(engine: str, spec: SourceSpec, request) -> list[tuple]:
    if engine == "duckdb":
        return duckdb_rows(spec)
    return spark_rows(spec, request.getfixturevalue("spark_remote"))


@pytest.fixture(scope="module")
def json_topic(kafka):
    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, JSON_MESSAGES)
    return topic


@pytest.fixture(scope="module")
def csv_topic(kafka):
    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, CSV_MESSAGES)
    return topic


ENGINES = ["duckdb", "spark"]


@pytest.mark.parametrize("engine", ENGINES)
def test_json_messages_parse_into_the_schema_malformed_ones_counted(engine, kafka, json_topic, request):
    spec = bounded_kafka(
        _spec(kafka.bootstrap, json_topic, "json", JSON_SCHEMA), [KafkaRange(json_topic, 0, 0, 8)], STAMP
    )
    assert _rows(engine, spec, request) == _expected(json_topic, JSON_EXPECTED, range(8))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_range_reads_exactly_its_offsets(engine, kafka, json_topic, request):
    spec = bounded_kafka(
        _spec(kafka.bootstrap, json_topic, "json", JSON_SCHEMA), [KafkaRange(json_topic, 0, 2, 6)], STAMP
    )
    assert _rows(engine, spec, request) == _expected(json_topic, JSON_EXPECTED, range(2, 6))


@pytest.mark.parametrize("engine", ENGINES)
def test_csv_messages_parse_into_the_schema(engine, kafka, csv_topic, request):
    spec = bounded_kafka(_spec(kafka.bootstrap, csv_topic, "csv", CSV_SCHEMA), [KafkaRange(csv_topic, 0, 0, 6)], STAMP)
    assert _rows(engine, spec, request) == _expected(csv_topic, CSV_EXPECTED, range(6))


@pytest.mark.parametrize("engine", ENGINES)
def test_text_messages_are_one_value_column(engine, kafka, request):
    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, [(None, b"hello"), (b"k", None), ("ü".encode(), 'ünï, "q"'.encode())])
    spec = bounded_kafka(_spec(kafka.bootstrap, topic, "text", None), [KafkaRange(topic, 0, 0, 3)], STAMP)
    rows = [((value,), key, False) for value, key in (("hello", None), (None, "k"), ('ünï, "q"', "ü"))]
    assert _rows(engine, spec, request) == _expected(topic, rows, range(3))


@pytest.mark.parametrize("engine", ENGINES)
def test_two_partitions_each_read_to_its_own_end(engine, kafka, request):
    topic = new_topic(kafka.bootstrap, partitions=2)
    produce(kafka.bootstrap, topic, [(b"a", b"p0-0"), (b"b", b"p0-1"), (b"c", b"p0-2")], partition=0)
    produce(kafka.bootstrap, topic, [(b"d", b"p1-0"), (b"e", b"p1-1")], partition=1)
    ranges = [KafkaRange(topic, 0, 1, 3), KafkaRange(topic, 1, 0, 1)]
    spec = bounded_kafka(_spec(kafka.bootstrap, topic, "text", None), ranges, STAMP)
    got = [(r[0], r[1], r[3], r[4]) for r in _rows(engine, spec, request)]  # value, key, partition, offset
    assert got == [("p0-1", "b", 0, 1), ("p0-2", "c", 0, 2), ("p1-0", "d", 1, 0)]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_range_ending_in_a_transaction_marker_ends(engine, kafka, request):
    """Committed [a, b] at 0-1 and its marker at 2, aborted [c] at 3 and its marker at 4: a batch
    to 5 reads a and b, and does not wait for offsets it will never be given."""
    topic = new_topic(kafka.bootstrap)
    produce_in_transaction(kafka.bootstrap, topic, [b"a", b"b"], commit=True)
    produce_in_transaction(kafka.bootstrap, topic, [b"c"], commit=False)
    spec = bounded_kafka(_spec(kafka.bootstrap, topic, "text", None), [KafkaRange(topic, 0, 0, 5)], STAMP)
    started = time.monotonic()
    assert [(r[0], r[4]) for r in _rows(engine, spec, request)] == [("a", 0), ("b", 1)]
    assert time.monotonic() - started < 10 if engine == "duckdb" else True


def test_both_engines_give_the_same_rows(kafka, json_topic, csv_topic, spark_remote):
    for topic, kind, schema, end in ((json_topic, "json", JSON_SCHEMA, 8), (csv_topic, "csv", CSV_SCHEMA, 6)):
        spec = bounded_kafka(_spec(kafka.bootstrap, topic, kind, schema), [KafkaRange(topic, 0, 0, end)], STAMP)
        assert duckdb_rows(spec) == spark_rows(spec, spark_remote)


def test_an_empty_range_reads_no_rows_and_has_the_stream_columns(kafka, json_topic):
    spec = bounded_kafka(
        _spec(kafka.bootstrap, json_topic, "json", JSON_SCHEMA), [KafkaRange(json_topic, 0, 3, 3)], STAMP
    )
    assert duckdb_rows(spec) == []
    engine = DuckDBEngine()
    try:
        assert engine.schema_of(spec) == stream_schema(spec)
    finally:
        engine.close()


def test_a_batch_is_read_and_parsed_once_however_often_it_is_registered(kafka, json_topic, monkeypatch):
    """A run registers a source for a view's schema, its metrics and its record samples: the
    broker is asked and the values parsed once per batch; another schema parses them again."""
    from gryph.local_backend.sources.kafka import reader as kafka_reader

    calls = {"read": 0, "parse": 0}

    def counted(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(kafka_reader, "_read_messages", counted("read", kafka_reader._read_messages))
    monkeypatch.setattr(kafka_reader, "parsed_messages", counted("parse", kafka_reader.parsed_messages))
    spec = bounded_kafka(
        _spec(kafka.bootstrap, json_topic, "json", JSON_SCHEMA), [KafkaRange(json_topic, 0, 1, 7)], STAMP
    )
    first = duckdb_rows(spec)
    assert duckdb_rows(spec) == first == _expected(json_topic, JSON_EXPECTED, range(1, 7))
    assert calls == {"read": 1, "parse": 1}
    narrower = bounded_kafka(
        _spec(kafka.bootstrap, json_topic, "json", "id bigint"), [KafkaRange(json_topic, 0, 1, 7)], STAMP
    )
    assert [row[0] for row in duckdb_rows(narrower)] == [2, None, None, None, 6, 7]  # 3 of them malformed
    assert calls == {"read": 2, "parse": 2}


@pytest.mark.parametrize("engine", ENGINES)
def test_on_malformed_fail_names_the_first_malformed_message(engine, kafka, json_topic, request):
    spec = _spec(kafka.bootstrap, json_topic, "json", JSON_SCHEMA, on_malformed="fail")
    with pytest.raises(EngineError) as info:
        _rows(engine, bounded_kafka(spec, [KafkaRange(json_topic, 0, 0, 8)], STAMP), request)
    assert info.value.code == "STREAM_MALFORMED"
    assert f"{json_topic}/0/2" in info.value.message
    well_formed = _rows(engine, bounded_kafka(spec, [KafkaRange(json_topic, 0, 0, 2)], STAMP), request)
    assert well_formed == _expected(json_topic, JSON_EXPECTED, range(2))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_broker_nobody_listens_on_is_an_error_in_bounded_time():
    address = f"127.0.0.1:{free_port()}"
    spec = bounded_kafka(_spec(address, "clicks", "text", None), [KafkaRange("clicks", 0, 0, 3)], STAMP)
    started = time.monotonic()
    with pytest.raises(EngineError) as info:
        duckdb_rows(spec)
    assert time.monotonic() - started < 15
    assert info.value.code == "KAFKA_UNREACHABLE" and address in info.value.message
    assert info.value.exit_code == 3


@pytest.mark.spark
def test_a_spark_server_without_the_kafka_connector_names_the_package_to_add():
    from gryph.client.spark import SparkEngine
    from gryph.client.spark.session.local_server import start_local_server
    from gryph.client.spark.sources.source_loading import load_source

    spec = bounded_kafka(_spec("127.0.0.1:9", "clicks", "text", None), [KafkaRange("clicks", 0, 0, 1)], STAMP)
    with start_local_server(connectors=False) as server, SparkEngine(server.url) as engine:
        with pytest.raises(EngineError) as info:
            load_source(engine.spark, spec)
    assert info.value.code == "KAFKA_NOT_ENABLED" and info.value.exit_code == 3
    assert "spark-sql-kafka-0-10_2.13" in info.value.hint and "--remote local" in info.value.hint


def test_values_and_keys_that_are_not_utf8_read_with_replacement_characters(kafka):
    """As Spark's cast of binary to string: each invalid byte becomes U+FFFD; a value without
    NULLs (read from one joined buffer) and one with NULLs (read value by value) alike."""
    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, [(b"\xff", b"a\xfeb"), (b"ok", "é".encode()), (b"k", b"")])
    spec = bounded_kafka(_spec(kafka.bootstrap, topic, "text", None), [KafkaRange(topic, 0, 0, 3)], STAMP)
    assert [(row[0], row[1]) for row in duckdb_rows(spec)] == [("a\ufffdb", "\ufffd"), ("é", "ok"), ("", "k")]
    produce(kafka.bootstrap, topic, [(None, None), (b"\xc3", "ü".encode())])
    spec = bounded_kafka(_spec(kafka.bootstrap, topic, "text", None), [KafkaRange(topic, 0, 3, 5)], STAMP)
    assert [(row[0], row[1]) for row in duckdb_rows(spec)] == [(None, None), ("ü", "\ufffd")]


def test_a_batch_asks_the_offsets_and_reads_through_one_consumer(kafka, monkeypatch):
    """Inside ``shared_consumers`` the offsets lookup and the reads share one consumer (one
    connection, one metadata request); a range read after another on it starts where asked,
    though the first read paused the partition at its end."""
    from gryph.local_backend.sources.kafka import consumer as kafka_consumer
    from gryph.local_backend.sources.kafka.broker import watermarks

    opened = []
    real_open = kafka_consumer._open
    monkeypatch.setattr(kafka_consumer, "_open", lambda *args: opened.append(1) or real_open(*args))
    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, [(f"k{i}".encode(), b"v") for i in range(5)])
    source = _spec(kafka.bootstrap, topic, "text", None)
    with kafka_consumer.shared_consumers():
        assert watermarks(source) == (KafkaRange(topic, 0, 0, 5),)
        first = duckdb_rows(bounded_kafka(source, [KafkaRange(topic, 0, 0, 2)], STAMP))
        second = duckdb_rows(bounded_kafka(source, [KafkaRange(topic, 0, 1, 5)], STAMP))
    assert [row[1] for row in first] == ["k0", "k1"]
    assert [row[1] for row in second] == ["k1", "k2", "k3", "k4"]
    assert len(opened) == 1
    assert watermarks(source) == (KafkaRange(topic, 0, 0, 5),)  # outside: a consumer of its own, closed after
    assert len(opened) == 2


def test_a_json_object_is_told_by_its_first_character_past_blanks(kafka):
    """Blanks JSON allows (space, tab, line breaks) may lead an object; an array, a bare word
    DuckDB's parser takes (nan) and a form feed before an object are no object: malformed."""
    topic = new_topic(kafka.bootstrap)
    values = [b' \t\r\n{"id": 9}\n', b" [1]", b"nan", b'\x0c{"id": 4}', b'"{"']
    produce(kafka.bootstrap, topic, [(b"k", value) for value in values])
    spec = bounded_kafka(_spec(kafka.bootstrap, topic, "json", "id bigint"), [KafkaRange(topic, 0, 0, 5)], STAMP)
    assert [(row[0], row[-2]) for row in duckdb_rows(spec)] == [(9, False), *[(None, True)] * 4]


@pytest.mark.parametrize("engine", ENGINES)
def test_offsets_deleted_after_the_batch_was_planned_are_data_lost(engine, kafka, request):
    """The broker deletes records between a batch's intent and its read: the read says which
    offsets are gone (DATA_LOST), on both engines, never rows from elsewhere."""
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import AdminClient

    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, [(None, b"a"), (None, b"b"), (None, b"c"), (None, b"d")])
    admin = AdminClient({"bootstrap.servers": kafka.bootstrap})
    for future in admin.delete_records([TopicPartition(topic, 0, 2)]).values():
        future.result(timeout=30)
    spec = bounded_kafka(_spec(kafka.bootstrap, topic, "text", None), [KafkaRange(topic, 0, 0, 4)], STAMP)
    with closing(_engine(engine, request)) as runs, pytest.raises(EngineError) as info:
        run_one(runs, read(runs, spec), {"clicks": spec})  # as a run reads it: the engine's errors
    assert info.value.code == "DATA_LOST"
    assert f"{topic}/0 lost offsets from 0 before they were read (the broker no longer holds them" in str(info.value)


def _engine(engine: str, request):
    if engine == "duckdb":
        return DuckDBEngine()
    from gryph.client.spark import SparkEngine

    return SparkEngine(request.getfixturevalue("spark_remote"))
