"""Typed stream positions (compiler/sources/stream_positions.py) and the state they are stored in.

A state written before positions were typed (built here by hand, table by table, as gryph wrote
them: Kafka ranges and files as lists in a batch's input JSON, positions and taken files as rows)
loads unchanged and goes on: its unfinished batch runs with the file it named, and the next batch
takes only what is new. A bounded Kafka spec carries its ranges as ``KafkaRange``s, not as JSON
text among the user's options."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import duckdb

from gryph.client.store.stream_state import BatchInput, StreamState
from gryph.client.streaming.stream_runner import stream
from gryph.compiler.sources.source_specs import SourceSpec
from gryph.compiler.sources.stream_positions import FileSlice, KafkaRange
from gryph.compiler.sources.stream_sources import bounded_kafka

SUITE = """suite landed
source landed = folder("incoming/", format = "json", schema = "id bigint, who string", settle = "1ms")
profiling rows on landed: count(*) as n, sum(id) as ids
"""

# the tables and rows of a state as gryph wrote it before its positions were typed (format 1)
OLD_TABLES = (
    "create table meta (key varchar primary key, value varchar)",
    "create table batches (batch bigint primary key, tmst bigint, input varchar, status varchar, document varchar)",
    "create table kafka_positions (source varchar, topic varchar, part integer, next_offset bigint, "
    "primary key (source, topic, part))",
    "create table folder_files (source varchar, path varchar, mtime_ns bigint, size bigint, batch bigint, "
    "primary key (source, path))",
    "create table accuracy_times (rule varchar, tmst bigint, total bigint, miss bigint, primary key (rule, tmst))",
    "create table outputs_done (batch bigint, output varchar, primary key (batch, output))",
)


def _old_input(kafka: dict, files: dict) -> str:
    return json.dumps({"kafka": kafka, "files": files, "lost": {}, "pending": {}, "cutoff": {}, "history": {}})


def _old_state(path: Path, suite: str, batches: list[tuple], positions=(), taken=()) -> None:
    with duckdb.connect(str(path)) as con:
        for statement in OLD_TABLES:
            con.execute(statement)
        con.executemany("insert into meta values (?, ?)", [["suite", suite], ["stream_id", "0f" * 16], ["format", "1"]])
        for row in batches:
            con.execute("insert into batches values (?, ?, ?, ?, ?)", list(row))
        for row in positions:
            con.execute("insert into kafka_positions values (?, ?, ?, ?)", list(row))
        for row in taken:
            con.execute("insert into folder_files values (?, ?, ?, ?, ?)", list(row))


def _arrive(folder: Path, name: str, ids: list[int], age_s: float) -> Path:
    path = folder / "incoming" / name
    path.write_text("".join(json.dumps({"id": i, "who": "é"}) + "\n" for i in ids), encoding="utf-8")
    moment = time.time() - age_s
    os.utime(path, (moment, moment))
    return path


def test_an_old_kafka_intent_loads_as_typed_ranges_and_stores_back_the_same(tmp_path):
    stored = _old_input({"clicks": [["t", 0, 3, 7], ["t", 1, 5, 5], ["ünï", 2, 0, 1]]}, {})
    _old_state(
        tmp_path / "s.duckdb",
        "clicks",
        [(1, 1_700_000_000_000, stored, "intent", None)],
        positions=[("clicks", "t", 0, 3), ("clicks", "t", 1, 5)],
    )
    state = StreamState(tmp_path / "s.duckdb", "clicks")
    try:
        batch = state.last_batch()
        assert batch is not None and batch.number == 1 and batch.status == "intent"
        assert batch.input.kafka == {
            "clicks": [KafkaRange("t", 0, 3, 7), KafkaRange("t", 1, 5, 5), KafkaRange("ünï", 2, 0, 1)]
        }
        assert batch.input.files == {}
        assert json.loads(batch.input.to_json()) == json.loads(stored)  # written back in the shape it was read
        assert state.kafka_positions("clicks") == {("t", 0): 3, ("t", 1): 5}
        assert not batch.input.empty  # t/0 holds 4 offsets, ünï/2 one
    finally:
        state.close()


def test_an_old_folder_state_goes_on_with_its_unfinished_batch_then_what_is_new(tmp_path):
    (tmp_path / "incoming").mkdir()
    suite = tmp_path / "landed.dq"
    suite.write_text(SUITE, encoding="utf-8")
    first = _arrive(tmp_path, "a.json", [1, 2], 50)
    second = _arrive(tmp_path, "b.json", [10, 20, 30], 40)
    third = _arrive(tmp_path, "c.json", [100], 30)
    listed = {p: [str(p), os.stat(p).st_mtime_ns, os.stat(p).st_size] for p in (first, second)}
    # batch 1 read a.json and was published; batch 2's intent names b.json, and it crashed there
    document = {"name": "landed", "engine": "duckdb", "started": "2026-01-01T00:00:00+00:00"}
    _old_state(
        tmp_path / "s.duckdb",
        "landed",
        [
            (1, 1_700_000_000_000, _old_input({}, {"landed": [listed[first]]}), "published", json.dumps(document)),
            (2, 1_700_000_001_000, _old_input({}, {"landed": [listed[second]]}), "intent", None),
        ],
        taken=[("landed", *listed[first], 1)],
    )
    state = StreamState(tmp_path / "s.duckdb", "landed")
    try:
        assert state.last_batch().input.files == {"landed": [FileSlice(*listed[second])]}
    finally:
        state.close()

    (rerun,) = stream(suite, once=True, state=tmp_path / "s.duckdb")
    part = rerun.to_dict()["stream"]
    assert (part["batch"], part["tmst"]) == (2, 1_700_000_001_000)  # the crashed batch, its time kept
    assert part["sources"]["landed"]["files"] == [str(second)]
    assert rerun.to_dict()["metrics"]["rows"] == [{"n": 3, "ids": 60}]

    (after,) = stream(suite, once=True, state=tmp_path / "s.duckdb")
    assert after.to_dict()["stream"]["batch"] == 3
    assert after.to_dict()["stream"]["sources"]["landed"]["files"] == [str(third)]  # a.json and b.json taken
    assert after.to_dict()["metrics"]["rows"] == [{"n": 1, "ids": 100}]


def test_a_bounded_kafka_spec_carries_typed_ranges_and_leaves_the_options_as_given():
    spec = SourceSpec(
        "clicks", "kafka", ("127.0.0.1:9092",), options=(("topic", "t,u"), ("kafka.client.id", "x")), stamp=None
    )
    bounded = bounded_kafka(spec, [KafkaRange("u", 0, 1, 2), KafkaRange("t", 1, 0, 9), KafkaRange("t", 0, 4, 4)], 77)
    assert bounded.options == spec.options  # no offsets among the user's options, JSON or other
    assert bounded.ranges == (KafkaRange("t", 0, 4, 4), KafkaRange("t", 1, 0, 9), KafkaRange("u", 0, 1, 2))
    assert bounded.stamp == 77 and bounded.location is spec.location
    assert [r.empty for r in bounded.ranges] == [True, False, False]


def test_an_input_of_typed_positions_is_stored_as_lists_of_their_fields():
    batch_input = BatchInput(
        kafka={"k": [KafkaRange("t", 3, 10, 12)]}, files={"f": [FileSlice("in/ä b.json", 1_700_000_000_123_456_789, 0)]}
    )
    assert json.loads(batch_input.to_json())["kafka"] == {"k": [["t", 3, 10, 12]]}
    assert json.loads(batch_input.to_json())["files"] == {"f": [["in/ä b.json", 1_700_000_000_123_456_789, 0]]}
