"""Engines for the conformance suite: DuckDB always, Spark Connect on the run's shared server."""

from __future__ import annotations

import pytest

from tests.conformance.conformance_support import open_engine
from tests.support.plan_helpers import Bench

ENGINE_NAMES = ("duckdb", "spark")


@pytest.fixture(scope="session")
def duckdb_engine():
    engine = open_engine("duckdb")
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def spark_conformance_engine(spark_remote):
    engine = open_engine("spark", spark_remote)
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def spark_rereading_engine(spark_conformance_engine):
    """The Spark engine reading sources once per scan, with GROUPING SETS for key histograms."""
    from gryph.client.spark import SparkEngine

    return SparkEngine(connection=spark_conformance_engine.connection, read_once=False)


@pytest.fixture(params=ENGINE_NAMES)
def dq_engine(request):
    """Each engine in turn; the Spark one needs the real server (a failure, never a skip)."""
    if request.param == "duckdb":
        return request.getfixturevalue("duckdb_engine")
    return request.getfixturevalue("spark_conformance_engine")


@pytest.fixture
def bench(dq_engine) -> Bench:
    """Hand-built plans over small tables, on each engine in turn."""
    return Bench(dq_engine)
