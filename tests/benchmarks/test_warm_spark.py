"""The warm Spark benchmark's hand-written PySpark script computes what gryph computes.

Two independent writings of examples/users.dq's metrics; no timing is asserted here
(``make bench-warm-spark`` measures it).
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_hand_written_script_agrees_with_gryph(spark_remote, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))  # benchmarks/ is a folder of the checkout, not a package
    from pyspark.sql.connect.session import SparkSession

    from benchmarks import warm_spark_by_hand
    from gryph.client.run.runner import run

    spark = SparkSession.builder.remote(spark_remote).create()
    try:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
        by_hand = json.loads(json.dumps(warm_spark_by_hand.metrics(spark), default=str))
    finally:
        spark.stop()
    gryph = json.loads(
        json.dumps(run(str(ROOT / "examples" / "users.dq"), "spark", remote=spark_remote).metrics, default=str)
    )
    assert by_hand == gryph
    # a few by hand from examples/data: four of the 50 users have no equal row in the copy,
    # user 10050 occurs twice, 37 orders have both times
    assert by_hand["users_match"]["miss_count"] == 4 and by_hand["ids"]["unique"] == 48
    assert by_hand["delivery"]["total"] == 37
