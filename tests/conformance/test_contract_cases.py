"""The contract cases of ``contracts/cases.json`` on both engines: each one contract over the tables
of the file, every check it states with its hand-derived status and value, and the verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from gryph.client import run
from tests.conformance.conformance_support import arrow_table

CASES_FILE = Path(__file__).resolve().parent / "contracts" / "cases.json"
DATA = json.loads(CASES_FILE.read_text(encoding="utf-8"))
CASES = {case["name"]: case for case in DATA["cases"]}


def write_contract(folder: Path, case: dict) -> Path:
    """The case's contract, its objects read from the file's tables written as parquet in ``folder``."""
    for name, table in DATA["tables"].items():
        pq.write_table(arrow_table(table), folder / f"{name}.parquet")
    contract = {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": case["name"],
        "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "files", "type": "local", "format": "parquet", "path": str(folder / "{model}.parquet")}],
        "schema": case["schema"],
    }
    path = folder / f"{case['name']}.odcs.yaml"
    path.write_text(yaml.safe_dump(contract, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(CASES))
def test_contract_case(tmp_path, dq_engine, name):
    case = CASES[name]
    result = run(str(write_contract(tmp_path, case)), dq_engine)
    found = {c.name: (c.status, next(iter(c.values.values()), None)) for c in result.checks}
    assert sorted(found) == sorted(case["checks"])
    for check, expected in case["checks"].items():
        assert found[check][: len(expected)] == tuple(expected), check
    assert result.to_dict()["pass"] is case["pass"]


def test_the_cases_are_many_and_explained():
    # issue 43 asks for at least 60 contracts with test_contract_semantics.py's; every case says why
    assert len(CASES) == len(DATA["cases"]) >= 30
    assert all(case["why"].strip() for case in DATA["cases"])


def test_a_contract_named_as_a_keyword_runs(tmp_path):
    # 'between' is a word of the language: the suite is between_, its checks named as the contract says
    case = {"name": "between", "schema": [{"name": "t", "quality": [{"metric": "rowCount", "mustBe": 7}]}]}
    result = run(str(write_contract(tmp_path, case)), "duckdb")
    assert result.name == "between_"
    assert [(c.name, c.status) for c in result.checks] == [("schema[0].quality[0]", "PASS")]
