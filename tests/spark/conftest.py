"""A Spark engine connected to the run's shared server, and helpers to build sources."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark_engine(spark_remote):
    from gryph.client.spark import SparkEngine

    engine = SparkEngine(spark_remote)
    try:
        yield engine
    finally:
        engine.close()
