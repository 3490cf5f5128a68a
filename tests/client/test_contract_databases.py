"""A data contract read from its postgres server: credentials from datacontract-cli's environment
variables, never printed; checks named by contract path. Counted by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests import mariadb_server
from tests.postgres_server import DATABASE, PASSWORD, USER

POSTGRES_LOGIN = {"DATACONTRACT_POSTGRES_USERNAME": USER, "DATACONTRACT_POSTGRES_PASSWORD": PASSWORD}
MYSQL_LOGIN = {
    "DATACONTRACT_MYSQL_USERNAME": mariadb_server.USER,
    "DATACONTRACT_MYSQL_PASSWORD": mariadb_server.PASSWORD,
}


def _run(contract, server: str, login: dict[str, str]) -> subprocess.CompletedProcess:
    """``gryph run`` of ``contract`` on its server ``server``, as a user runs it, JSON out."""
    return subprocess.run(
        [sys.executable, "-m", "gryph.client.cli.main", "run", str(contract), "--server", server, "--format", "json"],
        capture_output=True,
        text=True,
        env=dict(os.environ, **login),
        timeout=300,
    )


@pytest.fixture(scope="module")
def customers(postgres):
    postgres.execute("CREATE SCHEMA odcs")
    postgres.execute("CREATE TABLE odcs.customers (id bigint, email text)")
    postgres.execute("INSERT INTO odcs.customers VALUES (1, 'a@x'), (2, NULL), (2, 'b@x')")
    return postgres


def test_a_contract_reads_its_postgres_server_with_credentials_from_the_environment(customers, tmp_path):
    contract = tmp_path / "customers.odcs.yaml"
    contract.write_text(
        f"""apiVersion: v3.1.0
kind: DataContract
id: customers
version: 1.0.0
status: active
servers:
  - server: files
    type: local
    format: csv
    path: nowhere.csv
  - server: pg
    type: postgres
    host: 127.0.0.1
    port: {customers.port}
    database: {DATABASE}
    schema: odcs
schema:
  - name: customers
    properties:
      - name: id
        logicalType: integer
        unique: true
      - name: email
        quality:
          - metric: nullValues
            mustBe: 0
""",
        encoding="utf-8",
    )
    done = _run(contract, "pg", POSTGRES_LOGIN)
    assert done.returncode == 1, done.stderr  # the checks fail: the run is judged, not broken
    result = json.loads(done.stdout)
    # 2 appears twice: one duplicate; one NULL email
    assert result["check"] == {
        "schema[0].properties[0].unique": False,
        "schema[0].properties[1].quality[0]": False,
        "schema customers": True,
    }
    assert result["measure"]["schema[0].properties[0].unique"] == 1
    assert PASSWORD not in done.stdout + done.stderr


# each column's type as the server states it, and the physicalType a contract gives it
TYPED_COLUMNS = {
    "postgres": [
        ("name", "varchar(50)", "VARCHAR(50)"),
        ("price", "numeric(10,2)", "numeric(10,2)"),
        ("seen", "timestamp with time zone", "timestamptz"),
        ("n", "int", "int4"),
        ("big", "bigint", "BIGINT"),
        ("note", "text", "text"),
    ],
    "mysql": [
        ("name", "varchar(50)", "VARCHAR(50)"),
        ("price", "decimal(10,2)", "decimal(10,2)"),
        ("seen", "datetime", "datetime"),
        ("n", "int", "mediumint"),
        ("big", "bigint", "BIGINT"),
        ("note", "text", "longtext"),
    ],
}
# and types that are not the columns': a decimal of another precision, a date for a time, a number
# for a text (the length of a varchar is not compared: maxLength checks it)
WRONG = {"price": "numeric(12,2)", "seen": "date", "note": "integer", "name": "varchar(10)"}


def _typed_contract(folder, kind: str, port: int, database: str, wrong: bool):
    properties = "".join(
        f"      - name: {name}\n        physicalType: {WRONG.get(name, stated) if wrong else stated}\n"
        for name, _, stated in TYPED_COLUMNS[kind]
    )
    server = "    schema: odcs\n" if kind == "postgres" else ""
    path = folder / f"typed_{kind}_{wrong}.odcs.yaml"
    path.write_text(
        f"""apiVersion: v3.1.0
kind: DataContract
id: typed
version: 1.0.0
status: active
servers:
  - server: db
    type: {kind}
    host: 127.0.0.1
    port: {port}
    database: {database}
{server}schema:
  - name: typed
    properties:
{properties}""",
        encoding="utf-8",
    )
    return path


def _wrong_types(result: dict) -> list[str]:
    """The columns the schema check finds of another type, in the table's order."""
    (schema,) = result["check_details"]
    return [text.split(":")[0] for text in schema["values"].get("wrong types", [])]


@pytest.fixture(scope="module")
def typed_postgres(postgres):
    columns = ", ".join(f"{name} {declared}" for name, declared, _ in TYPED_COLUMNS["postgres"])
    postgres.execute("CREATE SCHEMA IF NOT EXISTS odcs")
    postgres.execute(f"CREATE TABLE odcs.typed ({columns})")
    postgres.execute("INSERT INTO odcs.typed VALUES ('a', 1.50, '2026-01-01 10:00+00', 1, 2, 'x')")
    return postgres


@pytest.fixture(scope="module")
def typed_mariadb(mariadb):
    columns = ", ".join(f"{name} {declared}" for name, declared, _ in TYPED_COLUMNS["mysql"])
    mariadb.execute(f"CREATE TABLE {mariadb_server.DATABASE}.typed ({columns})")
    mariadb.execute(f"INSERT INTO {mariadb_server.DATABASE}.typed VALUES ('a', 1.50, '2026-01-01 10:00:00', 1, 2, 'x')")
    return mariadb


# per server kind: the fixture holding its table, its database, the login from the environment
SERVERS = {
    "postgres": ("typed_postgres", DATABASE, POSTGRES_LOGIN),
    "mysql": ("typed_mariadb", mariadb_server.DATABASE, MYSQL_LOGIN),
}


@pytest.mark.parametrize("wrong", [False, True], ids=["stated", "wrong"])
@pytest.mark.parametrize("kind", sorted(SERVERS))
def test_physical_types_are_the_servers_column_types(request, tmp_path, kind, wrong):
    fixture, database, login = SERVERS[kind]
    done = _run(_typed_contract(tmp_path, kind, request.getfixturevalue(fixture).port, database, wrong), "db", login)
    result = json.loads(done.stdout)
    # by hand: every stated type names its column's (int4, mediumint: integers; timestamptz,
    # datetime: timestamps; longtext: a text); of the wrong ones, the precision 12, the date and the
    # integer differ, and varchar(10) is still a text (lengths are maxLength's)
    assert (done.returncode, result["check"]) == (
        (1, {"schema typed": False}) if wrong else (0, {"schema typed": True})
    )
    assert _wrong_types(result) == (["price", "seen", "note"] if wrong else [])
