"""ODCS contracts on both engines: one contract per row of docs/contracts.md's semantics table and
per operator, over one parquet file. Every expected count and verdict is derived by hand from TABLE."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
import yaml

from gryph.client import run
from gryph.compiler.errors import InvalidInput
from tests.conformance.conformance_support import arrow_table

# 7 rows. id: 1, 2, 2, 3, NULL, 5, 7 -- code: a, b, b, N/A, NULL, zz, '' -- amount: 1, 2.5, 10, NULL, 0, 7.5, 3
TABLE = {
    "columns": [["id", "int64"], ["code", "string"], ["amount", "float64"]],
    "rows": [
        [1, "a", 1.0],
        [2, "b", 2.5],
        [2, "b", 10.0],
        [3, "N/A", None],
        [None, None, 0.0],
        [5, "zz", 7.5],
        [7, "", 3.0],
    ],
}


def _contract(tmp_path, properties=(), quality=(), table=TABLE, sla=(), **obj):
    pq.write_table(arrow_table(table), tmp_path / "t.parquet")
    contract = {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": "semantics",
        "version": "1.0.0",
        "status": "active",
        "servers": [{"server": "files", "type": "local", "format": "parquet", "path": str(tmp_path / "t.parquet")}],
        "schema": [{"name": "t", "properties": list(properties), "quality": list(quality), **obj}],
    }
    if sla:
        contract["slaProperties"] = list(sla)
    path = tmp_path / "c.odcs.yaml"
    path.write_text(yaml.safe_dump(contract, sort_keys=False), encoding="utf-8")
    return path


def _checks(path, engine, data_time=None):
    result = run(str(path), engine, data_time=data_time)
    return {c.name: (c.status, next(iter(c.values.values()), None)) for c in result.checks}


# (metric on a property, its arguments, the count by hand)
LIBRARY = [
    ("id", "nullValues", {}, 1),  # row 5
    ("code", "nullValues", {}, 1),  # row 5 ('' is a value)
    ("code", "missingValues", {"missingValues": ["", "N/A"]}, 2),  # rows 4 and 7: NULL only when listed
    ("code", "missingValues", {"missingValues": [None, "", "N/A"]}, 3),  # and row 5
    ("code", "invalidValues", {"validValues": ["a", "b"]}, 3),  # N/A, zz, '': NULL is never invalid
    ("code", "invalidValues", {"validValues": ["a", "b", None]}, 3),  # null listed changes nothing
    ("code", "invalidValues", {"pattern": "^[a-z]+$"}, 2),  # N/A and '' (searched; NULL not counted)
    ("code", "invalidValues", {"pattern": "z"}, 5),  # unanchored search: only zz holds a z; a, b, b, N/A, '' do not
    ("id", "duplicateValues", {}, 1),  # 2 again; NULL is no value to repeat
    ("code", "duplicateValues", {}, 1),  # b again
    ("amount", "duplicateValues", {}, 0),
]


@pytest.mark.parametrize(("column", "metric", "arguments", "count"), LIBRARY)
def test_library_metric_counts_rows(tmp_path, dq_engine, column, metric, arguments, count):
    prop = {"name": column, "quality": [{"metric": metric, "arguments": arguments, "mustBe": count}]}
    checks = _checks(_contract(tmp_path, [prop]), dq_engine)
    assert checks["schema[0].properties[0].quality[0]"] == ("PASS", count)


# rowCount is 7: each operator once holding and once not (mustBeBetween exclusive, per the ODCS text)
OPERATORS = [
    ("mustBe", 7, True), ("mustBe", 6, False),
    ("mustNotBe", 7, False), ("mustNotBe", 6, True),
    ("mustBeGreaterThan", 7, False), ("mustBeGreaterThan", 6, True),
    ("mustBeGreaterOrEqualTo", 7, True), ("mustBeGreaterOrEqualTo", 8, False),
    ("mustBeLessThan", 7, False), ("mustBeLessThan", 8, True),
    ("mustBeLessOrEqualTo", 7, True), ("mustBeLessOrEqualTo", 6, False),
    ("mustBeBetween", [7, 10], False), ("mustBeBetween", [6, 8], True), ("mustBeBetween", [1, 7], False),
    ("mustNotBeBetween", [7, 10], True), ("mustNotBeBetween", [6, 8], False), ("mustNotBeBetween", [1, 7], True),
]  # fmt: skip


@pytest.mark.parametrize(("operator", "bound", "holds"), OPERATORS)
def test_every_operator(tmp_path, dq_engine, operator, bound, holds):
    checks = _checks(_contract(tmp_path, quality=[{"metric": "rowCount", operator: bound}]), dq_engine)
    assert checks["schema[0].quality[0]"] == ("PASS" if holds else "FAIL", 7)


def test_percent_is_of_the_object_rows(tmp_path, dq_engine):
    # one NULL id of 7 rows: 100/7 = 14.28...%: under 15, not under 14
    quality = [
        {"metric": "nullValues", "unit": "percent", "mustBeLessThan": 15},
        {"metric": "nullValues", "unit": "percent", "mustBeLessThan": 14},
    ]
    checks = _checks(_contract(tmp_path, [{"name": "id", "quality": quality}]), dq_engine)
    assert checks["schema[0].properties[0].quality[0]"][0] == "PASS"
    assert checks["schema[0].properties[0].quality[1]"][0] == "FAIL"


def test_severity_non_blocking_is_a_warning(tmp_path, dq_engine):
    quality = [{"metric": "rowCount", "mustBe": 0, "severity": s} for s in ("info", "warning", "minor", "error")]
    checks = _checks(_contract(tmp_path, quality=quality), dq_engine)
    assert [checks[f"schema[0].quality[{i}]"][0] for i in range(4)] == ["WARN", "WARN", "WARN", "FAIL"]


def test_schema_level_duplicates_and_composite_primary_key(tmp_path, dq_engine):
    # (id, code): (2, b) twice -> 1 duplicate; (id, amount) all distinct; row 5's NULLs break the key's required
    properties = [
        {"name": "id", "primaryKey": True, "primaryKeyPosition": 1},
        {"name": "code", "primaryKey": True, "primaryKeyPosition": 2},
    ]
    quality = [
        {"metric": "duplicateValues", "arguments": {"properties": ["id", "code"]}, "mustBe": 0},
        {"metric": "duplicateValues", "arguments": {"properties": ["id", "amount"]}, "mustBe": 0},
    ]
    checks = _checks(_contract(tmp_path, properties, quality), dq_engine)
    assert checks["schema[0].quality[0]"] == ("FAIL", 1)
    assert checks["schema[0].quality[1]"] == ("PASS", 0)
    assert checks["schema[0].primaryKey"] == ("FAIL", 1)
    assert checks["schema[0].primaryKey (required)"] == ("FAIL", 1)


def test_composite_duplicates_with_an_integer_part_count_the_same(tmp_path, dq_engine):
    # a key with a declared integer part is grouped over the rows whose integer part repeats only:
    # (1, x) three times -> 2; (1, y), (2, x), (3, z) once; (2, NULL) and (NULL, x) twice have a NULL
    # part (not judged, and (2, x) then repeats no integer among whole keys) -> 2, whichever part is first
    table = {
        "columns": [["k", "int64"], ["c", "string"]],
        "rows": [[1, "x"], [1, "y"], [1, "x"], [1, "x"], [2, "x"], [2, None], [None, "x"], [None, "x"], [3, "z"]],
    }
    properties = [
        {"name": "k", "logicalType": "integer", "primaryKey": True, "primaryKeyPosition": 1},
        {"name": "c", "logicalType": "string", "primaryKey": True, "primaryKeyPosition": 2},
    ]
    quality = [
        {"metric": "duplicateValues", "arguments": {"properties": ["c", "k"]}, "mustBe": 0},
        {"metric": "duplicateValues", "arguments": {"properties": ["k", "c"]}, "mustBeLessThan": 3},
    ]
    checks = _checks(_contract(tmp_path, properties, quality, table=table), dq_engine)
    assert checks["schema[0].quality[0]"] == ("FAIL", 2)
    assert checks["schema[0].quality[1]"] == ("PASS", 2)
    assert checks["schema[0].primaryKey"] == ("FAIL", 2)
    assert checks["schema[0].primaryKey (required)"] == ("FAIL", 3)


def test_required_unique_and_type_options(tmp_path, dq_engine):
    properties = [
        {"name": "id", "required": True, "unique": True},  # 1 NULL; 2 repeated
        {
            "name": "amount",
            "unique": True,
            "logicalType": "number",  # NULL is no duplicate
            "logicalTypeOptions": {
                "minimum": 0,
                "exclusiveMinimum": 0,
                "maximum": 10,
                "exclusiveMaximum": 10,
                "multipleOf": 2,
            },
        },
        {"name": "code", "logicalType": "string", "logicalTypeOptions": {"minLength": 1, "maxLength": 2}},
    ]
    checks = _checks(_contract(tmp_path, properties), dq_engine)
    p = "schema[0].properties"
    assert checks[f"{p}[0].required"] == ("FAIL", 1)
    assert checks[f"{p}[0].unique"] == ("FAIL", 1)
    assert checks[f"{p}[1].unique"] == ("PASS", 0)
    options = f"{p}[1].logicalTypeOptions"
    assert checks[f"{options}.minimum"] == ("PASS", 0)
    assert checks[f"{options}.exclusiveMinimum"] == ("FAIL", 1)  # the 0
    assert checks[f"{options}.maximum"] == ("PASS", 0)
    assert checks[f"{options}.exclusiveMaximum"] == ("FAIL", 1)  # the 10
    assert checks[f"{options}.multipleOf"] == ("FAIL", 4)  # 1, 2.5, 7.5, 3 (0 and 10 are multiples of 2)
    assert checks[f"{p}[2].logicalTypeOptions.minLength"] == ("FAIL", 1)  # ''
    assert checks[f"{p}[2].logicalTypeOptions.maxLength"] == ("FAIL", 1)  # N/A
    assert checks["schema t"][0] == "PASS"


def test_sql_rule_with_placeholders(tmp_path, dq_engine):
    # amounts over 2: 2.5, 10, 7.5, 3 -> 4
    prop = {"name": "amount", "quality": [{"type": "sql", "query": "SELECT COUNT(*) FROM {object} WHERE {property} > 2",
                                           "mustBe": 4}]}  # fmt: skip
    checks = _checks(_contract(tmp_path, [prop]), dq_engine)
    assert checks["schema[0].properties[0].quality[0]"] == ("PASS", 4)


def test_a_pattern_outside_the_portable_subset_is_refused_at_its_line(tmp_path):
    prop = {"name": "code", "quality": [{"metric": "invalidValues", "arguments": {"pattern": "(?<=a)b"}, "mustBe": 0}]}
    path = _contract(tmp_path, [prop])
    with pytest.raises(InvalidInput) as error:
        run(str(path), "duckdb")
    assert error.value.code == "CONTRACT_UNSUPPORTED"
    assert error.value.message.startswith("schema[0].properties[0].quality[0]: the pattern '(?<=a)b'")
    lines = path.read_text().splitlines()
    assert lines[error.value.location.line - 1].strip().startswith("- metric: invalidValues")


def test_latency_and_freshness_slas_are_freshness_checks(tmp_path, dq_engine):
    # the newest ts is 2026-11-20 00:00 (the NULL has no time); at data time 2026-11-21 its age is 1 day:
    # within 2 d and 36 h, beyond 12 h
    table = {"columns": [["ts", "timestamp"]], "rows": [["2026-11-19T00:00:00"], ["2026-11-20T00:00:00"], [None]]}
    sla = [
        {"property": "latency", "value": 2, "unit": "d", "element": "t.ts"},
        {"property": "freshness", "value": 36, "unit": "hours", "element": "t.ts"},
        {"property": "freshness", "value": 12, "unit": "h", "element": "t.ts"},
    ]
    checks = _checks(_contract(tmp_path, table=table, sla=sla), dq_engine, data_time="2026-11-21")
    day = 24 * 3600 * 1000
    assert checks == {
        "freshness sla_0 (error)": ("PASS", day),
        "freshness sla_1 (error)": ("PASS", day),
        "freshness sla_2 (error)": ("FAIL", day),
    }


def test_a_retention_sla_bounds_the_age_of_the_oldest_row(tmp_path, dq_engine):
    # the oldest ts is 2023-11-23 (the NULL has no time); at data time 2026-11-21 its age is 1094 days:
    # within 3 y (1095 days), beyond 36 mo (1080 days) and 1000 d; the newest row's age (1 day) is not judged
    table = {"columns": [["ts", "timestamp"]], "rows": [["2026-11-20T00:00:00"], ["2023-11-23T00:00:00"], [None]]}
    sla = [
        {"property": "retention", "value": 3, "unit": "y", "element": "t.ts"},
        {"property": "retention", "value": 36, "unit": "months", "element": "t.ts"},
        {"property": "retention", "value": 1000, "element": "t.ts"},  # no unit: days
    ]
    checks = _checks(_contract(tmp_path, table=table, sla=sla), dq_engine, data_time="2026-11-21")
    age = 1094 * 24 * 3600 * 1000
    assert checks == {
        "freshness sla_0 (error)": ("PASS", age),
        "freshness sla_1 (error)": ("FAIL", age),
        "freshness sla_2 (error)": ("FAIL", age),
    }


def test_a_retention_sla_over_no_time_fails(tmp_path, dq_engine):
    # no row has a time: the oldest is unknown, so is its age, and the check fails (as datacontract-cli's)
    table = {"columns": [["ts", "timestamp"]], "rows": [[None]]}
    sla = [{"property": "retention", "value": 1, "unit": "y", "element": "t.ts"}]
    checks = _checks(_contract(tmp_path, table=table, sla=sla), dq_engine, data_time="2026-11-21")
    assert checks == {"freshness sla_0 (error)": ("FAIL", None)}
