"""Spark's external modules on a local server: spark-avro and the Kafka connector, fetched from
Maven Central (client/spark/session/connectors/pom.xml) and loaded through ``spark.jars``; a server
without them gives a clear error naming what to add."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import fastavro
import pytest

from gryph.client.spark import SparkEngine
from gryph.client.spark.session.connector_jars import FETCH_COMMAND
from gryph.client.spark.session.local_server import start_local_server
from gryph.compiler.errors import EngineError
from gryph.compiler.sources.source_specs import SourceSpec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_bundled_griffin_avro_example_runs_with_remote_local(tmp_path):
    """The user's first Spark run: `gryph run examples/griffin/accuracy.json --remote local`.

    By hand (examples/data/users_info_*.avro): of src's 50 rows, 10039 (address), 10044
    (first_name 'Tom049') and src's two rows of 10050 have no target row equal in all seven
    columns (first names compared in upper case; 10042's NULL post_code matches target's NULL).
    """
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gryph.client.cli.main",
            "run",
            "accuracy.json",
            "--remote",
            "local",
            "--format",
            "json",
            "--no-history",
            "--quiet",
        ],
        cwd=EXAMPLES / "griffin",
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    metrics = json.loads(done.stdout)["metrics"]  # a Griffin job: one flat metric document
    assert (metrics["total_count"], metrics["miss_count"], metrics["matched_count"]) == (50, 4, 46)


def test_the_kafka_connector_reads_what_the_broker_holds(spark_remote, kafka):
    """Rows written to a topic through the connector come back from a batch read of it."""
    with SparkEngine(spark_remote) as engine:
        spark = engine.spark
        rows = [("k1", "first"), ("k2", "second"), ("k3", "third, with ünïcode")]
        frame = spark.createDataFrame(rows, "key string, value string")
        frame.write.format("kafka").option("kafka.bootstrap.servers", kafka.bootstrap).option("topic", "clicks").save()
        read = (
            spark.read.format("kafka")
            .option("kafka.bootstrap.servers", kafka.bootstrap)
            .option("subscribe", "clicks")
            .option("startingOffsets", "earliest")
            .load()
            .selectExpr("CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value", "offset")
        )
        got = read.collect()
    # the frame's partitions are written side by side: which row got which offset is not fixed
    assert sorted((r["key"], r["value"]) for r in got) == rows
    assert sorted(r["offset"] for r in got) == [0, 1, 2]


def test_a_server_without_spark_avro_names_the_package_to_add(tmp_path):
    # a whole Avro file (an empty one is refused before any reader, as damaged)
    with open(tmp_path / "u.avro", "wb") as out:
        fastavro.writer(out, {"type": "record", "name": "u", "fields": [{"name": "id", "type": "long"}]}, [{"id": 1}])
    with start_local_server(connectors=False) as server, SparkEngine(server.url) as engine:
        with pytest.raises(EngineError, match="Avro") as info:
            engine.schema_of(SourceSpec("u", "avro", paths=(str(tmp_path / "u.avro"),)))
    assert "spark-avro" in info.value.hint and f"`{FETCH_COMMAND}`" in info.value.hint
    # the command the hint gives names a module that is there (a moved module once left it stale)
    assert importlib.util.find_spec(FETCH_COMMAND.removeprefix("python -m ")) is not None
