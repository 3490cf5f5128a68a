"""The promise of identical metrics, for streams: the same scripted Kafka input, streamed on
DuckDB and on Spark, gives the same per-batch documents for all six rule types (each engine with
its own state; batch times differ, so documents are compared with their times taken out). The
first batch's values are also checked against numbers counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

from gryph.client.streaming.stream_runner import stream

from .kafka_topics import new_topic, produce

SUITE = """suite all_six
source events = kafka("{bootstrap}", topic = "{topic}", format = "json", max_records_per_batch = 4,
                      schema = "id bigint, name string, amount double, sent timestamp, seen timestamp")
source known = csv("known.csv")
completeness named on events: name
profiling sums on events: count(*) as n, sum(amount) as total, max(amount) as top
uniqueness ids on events: id with window = 1h
distinctness names on events: name with window = 1h, duplication.array = "dups"
timeliness delay on events: sent, seen with step.size = 1m
accuracy known_names on events, known: events.name = known.name with retry = 1h
"""

MESSAGES = [
    {"id": 1, "name": "ann", "amount": 1.5, "sent": "2026-11-25T10:00:00Z", "seen": "2026-11-25T10:00:30Z"},
    {"id": 2, "name": "bob", "amount": 2.0, "sent": "2026-11-25T10:00:00Z", "seen": "2026-11-25T10:02:00Z"},
    {"id": 2, "name": None, "amount": None, "sent": None, "seen": "2026-11-25T10:03:00Z"},
    {"id": 3, "name": "ann", "amount": 4.25, "sent": "2026-11-25T10:01:00Z", "seen": "2026-11-25T10:01:10Z"},
    {"id": 4, "name": "cy", "amount": 0.0, "sent": "2026-11-25T10:05:00Z", "seen": "2026-11-25T10:05:00Z"},
    {"id": 1, "name": "bob", "amount": -1.0, "sent": "2026-11-25T10:06:00Z", "seen": "2026-11-25T10:07:00Z"},
]


def _without_times(document: dict) -> dict:
    """The document less what depends on when it ran: times, durations, the batch time in updates."""
    kept = {k: v for k, v in document.items() if k not in ("started", "duration_seconds", "engine")}
    kept["metric"] = {k: v for k, v in document["metric"].items() if k != "timeElapsed"}
    stream = dict(document["stream"])
    stream.pop("tmst")
    stream["updates"] = {rule: list(times.values()) for rule, times in stream.get("updates", {}).items()}
    kept["stream"] = stream
    for record in kept.get("records", {}).values():  # samples carry each row's __tmst
        record["sample"] = sorted(
            json.dumps({k: v for k, v in row.items() if k != "__tmst"}, sort_keys=True) for row in record["sample"]
        )
    return kept


def _stream(folder: Path, engine: str, remote: str | None) -> list[dict]:
    documents = []
    for known in (["ann"], ["ann", "bob", "cy"]):  # bob and cy become known before the second batch
        (folder / "known.csv").write_text("name\n" + "".join(f"{n}\n" for n in known), encoding="utf-8")
        results = stream(folder / "all_six.dq", engine, remote=remote, once=True, state=folder / f"{engine}.duckdb")
        documents += [_without_times(r.to_dict()) for r in results]
    return documents


def test_duckdb_and_spark_agree_batch_by_batch(kafka, spark_remote, tmp_path):
    topic = new_topic(kafka.bootstrap)
    produce(kafka.bootstrap, topic, [(None, json.dumps(m).encode()) for m in MESSAGES])
    suite = SUITE.format(bootstrap=kafka.bootstrap, topic=topic)
    (tmp_path / "all_six.dq").write_text(suite, encoding="utf-8")
    duckdb_batches = _stream(tmp_path, "duckdb", None)
    spark_batches = _stream(tmp_path, "spark", spark_remote)
    assert len(duckdb_batches) == 2
    first = duckdb_batches[0]["metrics"]
    # messages 1-4: one NULL name; amounts 1.5 + 2 + 4.25; id 2 twice (ids 1, 3 unique); ann twice
    assert first["named"] == {"total": 4, "incomplete": 1, "complete": 3}
    assert first["sums"] == [{"n": 4, "total": 7.75, "top": 4.25}]
    assert first["ids"] == {"total": 4, "unique": 2}
    assert first["names"] == {"total": 4, "distinct": 3, "dups": [{"dup": 1, "num": 1}]}
    # latencies 30 s, 120 s, 10 s (the NULL sent is left out): avg 53333 ms, steps 0, 2, 0
    assert first["delay"]["total"] == 3 and first["delay"]["avg"] == 53333
    # known: ann only; bob misses, the NULL name is never a miss
    assert first["known_names"] == {"total": 4, "miss": 1, "matched": 3, "matchedFraction": 0.75}
    second = duckdb_batches[1]
    assert second["stream"]["updates"] == {
        "known_names": [{"total": 4, "miss": 0, "matched": 4, "matchedFraction": 1.0}]  # bob known now
    }
    assert duckdb_batches == spark_batches
