"""Every bundled example (``examples/*.dq``, ``examples/griffin/*.json``) runs on Spark, on a local
server with the jars ``--remote local`` loads, as a user runs it, with the metrics DuckDB gives.

The values themselves are derived by hand where each example is tested for what it measures
(tests/conformance/test_seed_examples.py, tests/conformance/test_griffin_measures.py,
tests/spark/test_spark_connectors.py); here the two engines must agree on all of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.comparison import mismatch
from tests.support.gryph_cli import gryph

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BUNDLED = sorted([*EXAMPLES.glob("*.dq"), *EXAMPLES.glob("griffin/*.json")])


def test_every_bundled_example_is_listed():
    names = {path.relative_to(EXAMPLES).as_posix() for path in BUNDLED}
    assert {"seed.dq", "users.dq", "griffin/accuracy.json", "griffin/measures.json"} <= names


@pytest.mark.parametrize("example", BUNDLED, ids=lambda path: path.relative_to(EXAMPLES).as_posix())
def test_the_example_runs_on_spark_as_on_duckdb(example, spark_remote):
    args = ("run", str(example), "--format", "json", "--no-history")
    local = gryph(*args)
    remote = gryph(*args, "--remote", spark_remote)
    assert local.returncode == 0, local.stderr
    assert remote.returncode == 0, remote.stderr
    on_duckdb, on_spark = json.loads(local.stdout), json.loads(remote.stdout)
    assert on_spark["engine"] == "spark"
    assert not mismatch(on_spark["metrics"], on_duckdb["metrics"]), mismatch(on_spark["metrics"], on_duckdb["metrics"])
    assert on_spark["pass"] == on_duckdb["pass"]
