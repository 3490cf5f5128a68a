"""The Python API on the Spark Connect engine (the run's shared local server)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from gryph.client import run
from gryph.client.engines import open_engine

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def spark(spark_remote):
    engine = open_engine("spark", spark_remote)
    yield engine
    engine.close()


def test_open_engine_spark_runs_frames(spark):
    result = run("completeness c on t: x", spark, frames={"t": pa.table({"x": pa.array([1, None], pa.int64())})})
    assert result.engine == "spark"
    assert result.metrics == {"c": {"total": 2, "incomplete": 1, "complete": 1}}


def test_example_suite_by_relative_path_on_spark(spark, monkeypatch):
    """Relative data paths are taken from the suite's folder, not the Spark server's directory."""
    monkeypatch.chdir(ROOT)
    result = run("examples/users.dq", spark)
    assert result.metrics["contact"] == {"total": 50, "incomplete": 1, "complete": 49}
