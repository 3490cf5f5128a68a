"""A contract's physicalType run over a local parquet file, as a user runs it: the bracket form
Bitol's examples write (``varchar[5]``, ``decimal[12,2]``) is compared as the parenthesised one,
and a type gryph does not know (a domain) is named beside the schema check, in the text report,
the JSON document and JUnit, not only warned of. Expected values are the file's types, written
below, against the contract's."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq

from tests.support.gryph_cli import gryph

CONTRACT = """apiVersion: v3.1.0
kind: DataContract
id: typed
version: 1.0.0
status: active
servers:
  - server: local
    type: local
    format: parquet
    path: ./typed.parquet
schema:
  - name: typed
    properties:
      - name: id
        physicalType: "{id}"
      - name: price
        physicalType: "{price}"
      - name: note
        physicalType: "Name"
"""


def _write(folder, id_type: str, price_type: str) -> None:
    columns = {
        "id": pa.array([1, 2], pa.int64()),
        "price": pa.array([Decimal("1.50"), None], pa.decimal128(10, 2)),
        "note": pa.array(["a", None], pa.string()),
    }
    pq.write_table(pa.table(columns), folder / "typed.parquet")
    (folder / "typed.odcs.yaml").write_text(CONTRACT.format(id=id_type, price=price_type), "utf-8")


def _schema_check(folder) -> tuple[dict, str, ET.Element]:
    done = gryph("run", "typed.odcs.yaml", "--no-history", "--format", "json", "--junit", "j.xml", cwd=folder)
    (check,) = [c for c in json.loads(done.stdout)["check_details"] if c["name"] == "schema typed"]
    (case,) = ET.parse(folder / "j.xml").getroot().iter("testcase")
    return check, done.stderr, case


def test_bracket_types_are_compared_as_their_parenthesised_form(tmp_path):
    _write(tmp_path, "varchar[5]", "decimal[12,2]")  # a text for an integer, another precision
    check, stderr, case = _schema_check(tmp_path)
    assert check["status"] == "FAIL"
    assert check["values"]["wrong types"] == [
        "id: integer, expected string",
        "price: decimal(10, 2), expected decimal(12, 2)",
    ]
    assert check["values"]["types not compared"] == ["note: Name (found string)"]
    assert case.find("failure") is not None
    assert "typed.odcs.yaml:19:9: TYPE_NOT_COMPARED" in stderr  # note's physicalType, at its line


def test_a_type_not_compared_is_named_beside_a_passing_check(tmp_path):
    _write(tmp_path, "bigint", "DECIMAL[10, 2]")
    check, _, case = _schema_check(tmp_path)
    assert check["status"] == "PASS"
    assert check["values"] == {"types not compared": ["note: Name (found string)"]}
    assert case.find("failure") is None
    assert case.findtext("system-out") == 'types not compared = ["note: Name (found string)"]'
