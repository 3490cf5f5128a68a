"""The Python API on the Spark Connect engine (the run's shared local server)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from gryph.client import run
from gryph.client.griffin.env import load_spark_config
from gryph.client.run.engines import open_engine

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


def test_griffin_env_json_sets_the_spark_session(spark, spark_remote, tmp_path):
    env = tmp_path / "env.json"
    env.write_text(
        json.dumps(
            {
                "spark": {
                    "log.level": "WARN",
                    "config": {"spark.sql.shuffle.partitions": 3, "spark.master": "local[*]"},
                },
                "sinks": [{"type": "CONSOLE"}],
            }
        )
    )
    settings = load_spark_config(env)
    assert settings == {"spark.sql.shuffle.partitions": "3", "spark.master": "local[*]"}
    # a session setting changes; the cluster's master cannot change under a running server
    assert spark.configure(settings) == ["spark.master"]
    assert spark.spark.conf.get("spark.sql.shuffle.partitions") == "3"
    spark.configure({"spark.sql.shuffle.partitions": "2"})
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gryph.client.cli.main",
            "run",
            "examples/users.dq",
            "--remote",
            spark_remote,
            "--env",
            str(env),
            "--no-history",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "not applied" in done.stderr and "spark.master" in done.stderr
