"""The local server's one JVM (driver and executor) has a 2 GB heap: a kept source's blocks are
read back from disk into the heap whole, and at Spark's default 1 GB a 1M-row split's valid
output died of it (benchmarks/README.md, quarantine outputs)."""

from __future__ import annotations


def test_the_local_server_runs_with_a_2g_heap(spark_engine):
    assert spark_engine.spark.conf.get("spark.driver.memory") == "2g"
