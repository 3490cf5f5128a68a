"""The benchmark harness still runs: a tiny size, one repeat, DuckDB and the floor only.

No timing is asserted here; speed is measured by ``python -m benchmarks.run``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bench(monkeypatch):
    # benchmarks/ is a folder of the checkout, not an installed package
    monkeypatch.syspath_prepend(str(ROOT))
    import benchmarks.run

    return benchmarks.run


def test_harness_runs_at_a_tiny_size(bench, tmp_path):
    output = tmp_path / "result.json"
    assert (
        bench.main(
            [
                "--rows",
                "2000",
                "--repeats",
                "1",
                "--systems",
                "duckdb-gryph,duckdb-floor",
                "--no-spark",
                "--output",
                str(output),
            ]
        )
        == 0
    )
    document = json.loads(output.read_text())
    systems = {s["system"]: s for s in document["systems"]}
    assert set(systems) == {"duckdb-gryph", "duckdb-floor"}
    assert all("error" not in s for s in systems.values()), systems
    # gryph computes the hand-written floor's numbers
    assert document["metrics_agree_with_floor"] == {"duckdb-gryph": True, "duckdb-floor": True}
    assert document["compile"]["rules"] == 1000
    # every DuckDB system ran under the default cap, and gryph ran again at a tenth of the rows
    assert document["duckdb_memory_limit"] == "8GB"
    growth = document["duckdb_growth_10x"]
    assert growth["small"] > 0 and growth["large"] > 0
    assert any("time grows" in line for line in document["targets"])


def test_gryph_on_the_peer_checks_agrees_with_their_hand_written_floor(bench, tmp_path):
    output = tmp_path / "result.json"
    assert (
        bench.main(
            [
                "--rows",
                "2000",
                "--repeats",
                "1",
                "--no-spark",
                "--output",
                str(output),
                "--systems",
                "duckdb-floor-peer-checks,duckdb-gryph-peer-checks",
            ]
        )
        == 0
    )
    document = json.loads(output.read_text())
    systems = {s["system"]: s for s in document["systems"]}
    assert all("error" not in s for s in systems.values()), systems
    assert document["metrics_agree_with_floor"] == {"duckdb-gryph-peer-checks": True}
    # the peer group's times are compared with the peer checks' own floor
    assert systems["duckdb-floor-peer-checks"]["ratio_to_floor"] == 1.0
