"""Contract servers of catalog tables: ``databricks`` (a table of the engine's catalog: Spark's
through Spark Connect, DuckDB's own) on both engines, and ``duckdb`` (a DuckDB file and schema),
which the CLI opens for the duckdb engine. Counts by hand from the rows written."""

from __future__ import annotations

import json

import duckdb
import pyarrow as pa
import yaml

from gryph.client import run
from gryph.client.cli.main import main

HEAD = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "srv", "version": "1.0.0", "status": "active"}
# id: 1..5, email: a, NULL, b, NULL, NULL -- the rows without an email are ids 2, 4 and 5
PEOPLE = pa.table({"id": pa.array([1, 2, 3, 4, 5], pa.int64()), "email": pa.array(["a", None, "b", None, None])})


def _object(table: str) -> dict:
    return {
        "name": "people",
        "physicalName": table,
        "properties": [
            {"name": "id", "required": True, "quality": [{"metric": "invalidValues", "arguments": {"validValues": [2, 4]}, "mustBe": 0}]},
            {"name": "email", "quality": [{"metric": "nullValues", "mustBe": 3}]},
        ],
        "quality": [{"metric": "rowCount", "mustBe": 3}],
    }  # fmt: skip


def _write(tmp_path, server: dict, table: str):
    path = tmp_path / "srv.odcs.yaml"
    contract = {**HEAD, "servers": [server], "schema": [_object(table)]}
    path.write_text(yaml.safe_dump(contract, sort_keys=False), encoding="utf-8")
    return path


def test_a_databricks_server_reads_a_table_of_the_engines_catalog(tmp_path, dq_engine):
    # the run's records written as a table of the engine's catalog: the rows without an email (ids 2, 4, 5)
    run("completeness mail on people: email\n", dq_engine, frames={"people": PEOPLE}, records_to="table:odcs_srv_")
    catalog, schema = ("spark_catalog", "default") if dq_engine.name == "spark" else ("memory", "main")
    server = {"server": "lake", "type": "databricks", "host": "unused.example", "catalog": catalog, "schema": schema}
    result = run(str(_write(tmp_path, server, "odcs_srv_mail__incompleteRecords")), dq_engine)
    checks = {c.name: (c.status, next(iter(c.values.values()), None)) for c in result.checks}
    assert checks == {
        "schema[0].properties[0].required": ("PASS", 0),
        "schema[0].properties[0].quality[0]": ("FAIL", 1),  # 5 is not among 2, 4
        "schema[0].properties[1].quality[0]": ("PASS", 3),
        "schema[0].quality[0]": ("PASS", 3),
        "schema people": ("PASS", None),
    }


def test_a_duckdb_server_is_opened_by_the_cli(tmp_path, capsys):
    with duckdb.connect(str(tmp_path / "crm.duckdb")) as con:
        con.execute("CREATE SCHEMA crm")
        con.execute('CREATE TABLE crm.crm."the people" AS SELECT * FROM PEOPLE')  # all 5; schema named as the file
    server = {"server": "db", "type": "duckdb", "database": "crm.duckdb", "schema": "crm"}
    path = _write(tmp_path, server, "the people")
    assert main(["run", str(path), "--format", "json", "--no-history"]) == 1
    checks = json.loads(capsys.readouterr().out)["check"]
    assert checks == {
        "schema[0].properties[0].required": True,
        "schema[0].properties[0].quality[0]": False,  # 1, 3 and 5 are not among 2, 4
        "schema[0].properties[1].quality[0]": True,  # 3 NULL emails
        "schema[0].quality[0]": False,  # 5 rows, not 3
        "schema people": True,
    }
    # the file is DuckDB's: the spark engine is refused before it starts
    assert main(["run", str(path), "--engine", "spark"]) == 2
    assert "the duckdb engine reads it" in capsys.readouterr().err
