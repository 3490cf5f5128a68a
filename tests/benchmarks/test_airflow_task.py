"""The Airflow overhead benchmark still runs: one fresh process, the DAG run twice by dag.test(),
both tasks succeeding. No timing is asserted; ``python -m benchmarks.airflow_task`` measures."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_airflow_benchmark_runs_both_tasks(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(ROOT))  # benchmarks/ is a folder of the checkout, not a package
    import benchmarks.airflow_task

    output = tmp_path / "airflow.json"
    assert benchmarks.airflow_task.main(["--processes", "1", "--runs", "2", "--output", str(output)]) == 0
    document = json.loads(output.read_text())
    for part in ("first_run", "later_runs"):
        times = document[part]["times"]
        assert {name: len(values) for name, values in times.items()} == {"bare_duckdb": 1, "gryph": 1}
        assert all(seconds > 0 for values in times.values() for seconds in values)
    assert document["import_median"] > 0
