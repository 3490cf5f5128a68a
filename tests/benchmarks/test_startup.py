"""The small-run benchmark still runs: one repeat of every system, fresh processes.

No timing is asserted here; speed is measured by ``python -m benchmarks.startup``.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_startup_benchmark_runs_and_its_floor_computes_gryphs_metrics(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(ROOT))  # benchmarks/ is a folder of the checkout, not a package
    import benchmarks.startup

    output = tmp_path / "startup.json"
    assert benchmarks.startup.main(["--repeats", "1", "--output", str(output)]) == 0
    document = json.loads(output.read_text())
    assert set(document["medians"]) == set(benchmarks.startup.SYSTEMS)
    assert document["same_metrics"] is True
    assert len(document["cold_validate_1000"]["times"]) == 1
