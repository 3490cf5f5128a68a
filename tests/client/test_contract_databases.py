"""A data contract read from its postgres server: credentials from datacontract-cli's environment
variables, never printed; checks named by contract path. Counted by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.postgres_server import DATABASE, PASSWORD, USER


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
    env = dict(os.environ, DATACONTRACT_POSTGRES_USERNAME=USER, DATACONTRACT_POSTGRES_PASSWORD=PASSWORD)
    done = subprocess.run(
        [sys.executable, "-m", "gryph.client.cli.main", "run", str(contract), "--server", "pg", "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
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
