"""Bitol's own quality examples (bitol-io/open-data-contract-standard docs/examples/quality, unchanged
but for a local server appended) over one hand-made Air_Quality table, on both engines."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from gryph.client import run
from gryph.compiler.contracts.contract_suite import load_contract
from gryph.compiler.errors import LocatedWarning
from tests.conformance.conformance_support import arrow_table

EXAMPLES = Path(__file__).resolve().parents[1] / "compiler" / "contracts" / "odcs_examples"

# UniqueID: 1, 2, NULL, 4, 4 -- DataValue: 10, 600, 20, 30, 0 -- status: good, '', n/a, NULL, bad
AIR_QUALITY = {
    "columns": [["UniqueID", "int64"], ["DataValue", "float64"], ["air_quality_status", "string"]],
    "rows": [[1, 10.0, "good"], [2, 600.0, ""], [None, 20.0, "n/a"], [4, 30.0, None], [4, 0.0, "bad"]],
}

# per example: every check it states, with its status and first value, by hand
EXPECTED = {
    "quality-column-completeness.odcs.yaml": {
        "schema[0].properties[0].quality[0]": ("FAIL", 1),  # nullValues mustBe 0: row 3
        "schema[0].primaryKey (required)": ("FAIL", 1),  # the same NULL
        "schema[0].primaryKey": ("FAIL", 1),  # 4 twice
        "schema Air_Quality": ("PASS", None),  # number: the column only
    },
    "quality-column-accuracy.odcs.yaml": {
        "schema[0].properties[0].quality[0]": ("FAIL", 2),  # DataValue <= 0 or >= 500: 600 and 0
        "schema Air_Quality": ("PASS", None),
    },
    "quality-column-validity.odcs.yaml": {
        # invalidValues (validValues '', null, n/a) in percent <= 5: good and bad of 5 rows = 40
        "schema[0].properties[0].quality[0]": ("FAIL", 2),
        "schema[0].primaryKey (required)": ("FAIL", 1),  # the NULL status
        "schema[0].primaryKey": ("PASS", 0),  # good, '', n/a, bad: distinct
        "schema Air_Quality": ("PASS", None),
    },
    "quality-column-custom.odcs.yaml": {  # its two soda rules are not run
        "schema[0].primaryKey (required)": ("FAIL", 1),
        "schema[0].primaryKey": ("FAIL", 1),
        "schema Air_Quality": ("PASS", None),
    },
}


def test_bitol_adventureworks_example_loads_with_a_warning_per_type_it_does_not_compare(tmp_path, monkeypatch):
    # 68 PostgreSQL tables whose physicalTypes include domains (Name, Flag, ...), uuid, xml and time
    # (warnings), varchar[50] (a length), timestamps as v3.0 dates and bytea as strings (compared)
    server = (
        "servers:\n  - server: pg\n    type: postgres\n    host: 127.0.0.1\n    port: 5432\n"
        "    database: adventureworks\n    schema: sales\n"
    )
    monkeypatch.setenv("DATACONTRACT_POSTGRES_USERNAME", "reader")  # loaded, not connected to
    monkeypatch.setenv("DATACONTRACT_POSTGRES_PASSWORD", "unused")
    contract = tmp_path / "adventureworks.odcs.yaml"
    text = (EXAMPLES / "all-postgresql-adventureworks-contract.odcs.yaml").read_text(encoding="utf-8")
    contract.write_text(text + server, encoding="utf-8")
    with pytest.warns(LocatedWarning) as caught:
        suite = load_contract(contract)
    unknown = Counter(str(w.message).split("physicalType '")[1].split("'")[0] for w in caught)
    # counted in the file with grep: physicalType: "uuid" 29 times, "Name" 28, ...
    assert unknown == {"uuid": 29, "Name": 28, "Flag": 10, "xml": 7, "time": 2, "AccountNumber": 2, "Phone": 1,
                       "OrderNumber": 1, "NameStyle": 1}  # fmt: skip
    assert len(suite.schemas) == 68


@pytest.mark.parametrize("example", sorted(EXPECTED))
def test_bitol_quality_example(tmp_path, dq_engine, example):
    pq.write_table(arrow_table(AIR_QUALITY), tmp_path / "air_quality.parquet")
    server = "servers:\n  - server: files\n    type: local\n    format: parquet\n    path: air_quality.parquet\n"
    contract = tmp_path / example
    contract.write_text((EXAMPLES / example).read_text(encoding="utf-8") + server, encoding="utf-8")
    result = run(str(contract), dq_engine)
    checks = {c.name: (c.status, next(iter(c.values.values()), None)) for c in result.checks}
    assert checks == EXPECTED[example]
    assert result.to_dict()["pass"] is False
