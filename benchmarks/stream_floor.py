"""The streaming benchmark's floor: stream_data.SUITE's metrics over one batch of a topic,
hand-written without gryph, once per engine.

- DuckDB: a confluent-kafka consumer assigned to each partition from offset 0 collects the
  message values up to the batch's end offsets, hands them to DuckDB as one Arrow column, which
  parses them with ``json_transform`` into a table; one statement then computes every metric
  (one scan for the row counts, a group-by for ids and one for users, an anti join with the csv).
- Spark: a Kafka batch read of the same offsets (``assign``, ``startingOffsets`` /
  ``endingOffsets``), ``from_json``, the rows kept in the executors' storage once
  (``localCheckpoint``) and the same four parts computed from them, each collected.

Both reshape their numbers into the metrics gryph reports, and the benchmark compares them.
"""

from __future__ import annotations

import json
from fractions import Fraction

from .stream_data import SCHEMA

JSON_TYPES = {"id": "BIGINT", "user": "VARCHAR", "country": "VARCHAR", "amount": "DOUBLE"}
JSON_TYPES |= {"created": "TIMESTAMP", "shipped": "TIMESTAMP"}
LATENCY_MS = "epoch_ms(shipped) - epoch_ms(created)"

DUCKDB_METRICS = f"""
WITH
scan AS (
  SELECT count(*) AS n, count_if(user IS NULL) AS no_user, count_if(user IS NULL OR country IS NULL) AS no_contact,
         count(amount) AS amounts, sum(amount) AS total, min(amount) AS lowest, max(amount) AS highest,
         count_if(created IS NOT NULL AND shipped IS NOT NULL) AS timed,
         sum({LATENCY_MS}) FILTER (WHERE created IS NOT NULL AND shipped IS NOT NULL) AS latency
  FROM clicks
),
ids AS (SELECT count_if(n = 1) AS unique_ids FROM (SELECT count(*) AS n FROM clicks GROUP BY id)),
users_seen AS (SELECT count(*) AS distinct_users FROM (SELECT user FROM clicks GROUP BY user)),
misses AS (
  SELECT count(*) AS miss FROM clicks c ANTI JOIN known k ON coalesce(c.user, '') = coalesce(k.name, '')
  WHERE c.user IS NOT NULL
)
SELECT * FROM scan, ids, users_seen, misses
"""


def metrics_from_row(r: dict) -> dict:
    """The suite's metrics, named as gryph names them, from the floor's numbers."""
    n = r["n"]
    matched = n - r["miss"]
    timed = r["timed"]
    return {
        "user_present": {"total": n, "incomplete": r["no_user"], "complete": n - r["no_user"]},
        "contact": {"total": n, "incomplete": r["no_contact"], "complete": n - r["no_contact"]},
        "amounts": [
            {"n": n, "amounts": r["amounts"], "total": r["total"], "lowest": r["lowest"], "highest": r["highest"]}
        ],
        "ids": {"total": n, "unique": r["unique_ids"]},
        "user_distinct": {"total": n, "distinct": r["distinct_users"]},
        # the average latency truncated toward zero, exactly
        "delivery": {"total": timed, "avg": int(Fraction(int(r["latency"]), timed)) if timed else None},
        "known_user": {"total": n, "miss": r["miss"], "matched": matched, "matchedFraction": matched / n if n else 1.0},
    }


def consume_values(bootstrap: str, topic: str, ranges: dict[int, tuple[int, int]]) -> list[bytes]:
    """Every message value of ``topic`` in ``ranges``: per partition, offsets [start, end)."""
    from confluent_kafka import Consumer, TopicPartition

    pending = {partition: end for partition, (start, end) in ranges.items() if end > start}
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "floor", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, partition, ranges[partition][0]) for partition in pending])
    values: list[bytes] = []
    try:
        while pending:
            for message in consumer.consume(num_messages=10_000, timeout=0.02):  # returns at the timeout
                if message.error() is not None:
                    raise RuntimeError(message.error().str())
                partition, offset = message.partition(), message.offset()
                end = pending.get(partition, 0)
                if offset < end:
                    values.append(message.value())
                if offset >= end - 1:
                    pending.pop(partition, None)
                    consumer.pause([TopicPartition(topic, partition)])
    finally:
        consumer.close()
    return values


def run_duckdb(bootstrap: str, topic: str, ranges: dict[int, tuple[int, int]], users_csv: str) -> dict:
    """The batch of ``ranges`` read by hand and its metrics computed in DuckDB."""
    import duckdb
    import pyarrow as pa

    values = consume_values(bootstrap, topic, ranges)
    raw = pa.table({"v": pa.array(values, pa.binary()).cast(pa.string())})
    with duckdb.connect() as con:
        con.register("raw", raw)
        structure = json.dumps(JSON_TYPES).replace("'", "''")
        con.execute(f"CREATE TEMP TABLE clicks AS SELECT unnest(json_transform(v, '{structure}')) FROM raw")
        con.execute(f"CREATE TEMP TABLE known AS SELECT name FROM read_csv('{users_csv}', header = true)")
        cursor = con.execute(DUCKDB_METRICS)
        row = dict(zip([d[0] for d in cursor.description], cursor.fetchone(), strict=True))
    return metrics_from_row(row)


def run_spark(spark, bootstrap: str, topic: str, ranges: dict[int, tuple[int, int]], users_csv: str) -> dict:
    """The batch of ``ranges`` read by the cluster, the same metrics computed there."""
    from pyspark.sql.connect import functions as F

    raw = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("assign", json.dumps({topic: sorted(ranges)}))
        .option("startingOffsets", json.dumps({topic: {str(p): start for p, (start, _) in ranges.items()}}))
        .option("endingOffsets", json.dumps({topic: {str(p): end for p, (_, end) in ranges.items()}}))
        .load()
    )
    clicks = raw.select(F.from_json(F.col("value").cast("string"), SCHEMA).alias("j")).select("j.*")
    clicks = clicks.localCheckpoint()  # the topic is read once; the four parts below read the copy
    timed = F.col("created").isNotNull() & F.col("shipped").isNotNull()
    latency = F.unix_millis(F.col("shipped")) - F.unix_millis(F.col("created"))
    count_if = lambda condition: F.count(F.when(condition, 1))  # noqa: E731
    scan = clicks.agg(
        F.count(F.lit(1)).alias("n"),
        count_if(F.col("user").isNull()).alias("no_user"),
        count_if(F.col("user").isNull() | F.col("country").isNull()).alias("no_contact"),
        F.count("amount").alias("amounts"),
        F.sum("amount").alias("total"),
        F.min("amount").alias("lowest"),
        F.max("amount").alias("highest"),
        count_if(timed).alias("timed"),
        F.sum(F.when(timed, latency)).alias("latency"),
    )
    row = scan.collect()[0].asDict()
    row["unique_ids"] = clicks.groupBy("id").count().filter(F.col("count") == 1).count()
    row["distinct_users"] = clicks.select("user").distinct().count()
    known = spark.read.option("header", True).csv(users_csv).select(F.col("name"))
    same = F.coalesce(F.col("user"), F.lit("")) == F.coalesce(F.col("name"), F.lit(""))
    row["miss"] = clicks.filter(F.col("user").isNotNull()).join(known, same, "left_anti").count()
    return metrics_from_row(row)
