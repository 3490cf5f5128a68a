"""``--quarantine-to`` where no source has a row-level rule is an error before any scan (it wrote
nothing and said nothing): a native suite of measures, a stream, a contract of object-level rules.
A contract with row-level clauses writes its rows (tests/conformance/test_contract_quarantine.py
holds them on both engines)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from tests.support.gryph_cli import gryph

CONTRACT = """apiVersion: v3.1.0
kind: DataContract
id: air
name: air
version: 1.0.0
status: active
servers:
  - server: local
    type: local
    format: csv
    path: air.csv
schema:
  - name: air
    properties:
      - name: station
        logicalType: string{clauses}
    quality:
      - metric: rowCount
        mustBeGreaterThan: 0
      - type: sql
        query: select count(*) from {{object}} where pm25 > 500
        mustBe: 0
"""
AIR = "station,pm25\nOslo,12\n,40\nLyon,\nÅre,7\n"  # by hand: the second row has no station


def _refused(result, suite: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert "error QUARANTINE_TARGET: quarantine folder 'out' would stay empty" in result.stderr
    assert f"suite {suite!r} has no row-level rule" in result.stderr
    assert "completeness, validity, accuracy or uniqueness rule" in result.stderr  # what would make one
    assert "required, unique, primaryKey" in result.stderr


def test_a_suite_of_measures_refuses_a_quarantine_before_any_scan(tmp_path):
    (tmp_path / "air.csv").write_text(AIR, "utf-8")
    suite = 'suite air\nsource air = csv("air.csv", header = true)\nmeasure rows: select count(*) from air\n'
    (tmp_path / "air.dq").write_text(suite, "utf-8")
    _refused(gryph("run", "air.dq", "--quarantine-to", "out", "--no-history", cwd=tmp_path), "air")
    assert not (tmp_path / "out").exists()


def test_a_stream_without_a_row_level_rule_refuses_a_quarantine(tmp_path):
    (tmp_path / "landing").mkdir()
    (tmp_path / "landing" / "1.csv").write_text("id,email\n1,a@x.io\n", "utf-8")
    suite = (
        "suite events\n"
        'source events = folder("landing/", format = "csv", schema = "id bigint, email string", settle = "1ms")\n'
        "measure n: select count(*) from events\n"
    )
    (tmp_path / "events.dq").write_text(suite, "utf-8")
    _refused(gryph("stream", "events.dq", "--available-now", "--quarantine-to", "out", cwd=tmp_path), "events")
    assert not (tmp_path / "out").exists()


def test_a_contract_of_object_rules_refuses_a_quarantine(tmp_path):
    (tmp_path / "air.csv").write_text(AIR, "utf-8")
    (tmp_path / "air.odcs.yaml").write_text(CONTRACT.format(clauses=""), "utf-8")
    _refused(gryph("run", "air.odcs.yaml", "--quarantine-to", "out", "--no-history", cwd=tmp_path), "air")
    assert not (tmp_path / "out").exists()


def test_a_contract_with_a_required_property_quarantines_by_hand(tmp_path):
    (tmp_path / "air.csv").write_text(AIR, "utf-8")
    (tmp_path / "air.odcs.yaml").write_text(CONTRACT.format(clauses="\n        required: true"), "utf-8")
    result = gryph(
        "run", "air.odcs.yaml", "--quarantine-to", "out", "--no-history", "--data-time", "2026-11-01", cwd=tmp_path
    )
    assert result.returncode == 1, result.stderr  # the required check fails: one row has no station
    assert "air     quarantine  1     out/air/quarantine/data_time=2026-11-01" in result.stdout
    folder = Path(tmp_path / "out" / "air")
    bad = duckdb.sql(
        f"SELECT pm25, [e.rule FOR e IN _dq_errors] FROM read_parquet('{folder}/quarantine/*/*.parquet')"
    ).fetchall()
    good = duckdb.sql(f"SELECT station FROM read_parquet('{folder}/valid/*/*.parquet') ORDER BY station").fetchall()
    assert bad == [(40, ["schema[0].properties[0].required"])]
    assert good == [("Lyon",), ("Oslo",), ("Åre",)]
